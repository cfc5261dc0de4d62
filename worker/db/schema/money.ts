import { sql } from "drizzle-orm";
import { secondOperatorCheck, secondOperatorColumns } from "./second-operator";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Where users send money in: a crypto address per currency and chain (operator config). */
export const deposit_channels = sqliteTable(
  "deposit_channels",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    currency: text("currency").notNull(),
    chain: text("chain").notNull(),
    /** Unused since each user has their own address (kept so old rows read back). */
    address: text("address").notNull(),
    /**
     * The extended public key (BIP-32) that operators set for this channel: user N's address
     * is its child N. The app never holds a private key.
     */
    xpub: text("xpub").notNull().default(""),
    min_amount_micro: integer("min_amount_micro").notNull(),
    /** Four eyes on where deposits go: whoever set the xpub cannot open the channel. */
    ...secondOperatorColumns(),
    sort: integer("sort").notNull().default(0),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [
    check("deposit_channels_min_positive", sql`${t.min_amount_micro} > 0`),
    secondOperatorCheck("deposit_channels_four_eyes", t),
  ],
);

/**
 * Each user's own deposit address per channel, derived from the channel's xpub at the user's
 * index, so a transfer to it can only be claimed by that user. Kept so operators can look up
 * whose address received a payment.
 */
export const deposit_addresses = sqliteTable(
  "deposit_addresses",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    user_id: integer("user_id").notNull(),
    channel_id: integer("channel_id").notNull(),
    chain: text("chain").notNull(),
    /** The xpub it was derived from: a new xpub gives new addresses, old ones stay findable. */
    xpub: text("xpub").notNull(),
    derivation_index: integer("derivation_index").notNull(),
    address: text("address").notNull(),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [
    uniqueIndex("deposit_addresses_user_unique").on(t.user_id, t.channel_id, t.xpub),
    uniqueIndex("deposit_addresses_address_unique").on(t.chain, t.address),
  ],
);

/** Fee and minimum per withdrawal channel: "trc20" (USDT to a TRC20 address) and "bank". */
export const withdrawal_rules = sqliteTable(
  "withdrawal_rules",
  {
    channel: text("channel", { enum: ["trc20", "bank"] }).primaryKey(),
    fee_fixed_micro: integer("fee_fixed_micro").notNull(),
    /** Proportional fee in basis points (1/100 of a percent). */
    fee_rate_bp: integer("fee_rate_bp").notNull(),
    min_amount_micro: integer("min_amount_micro").notNull(),
    enabled: integer("enabled").notNull().default(1),
    updated_at_ms: integer("updated_at_ms").notNull(),
    /** Fees and minimum are terms: changed by a proposal a different operator opens (worker/domain/terms/). */
    terms_version: integer("terms_version").notNull().default(1),
    terms_by: integer("terms_by"),
    terms_opened_by: integer("terms_opened_by"),
  },
  (t) => [
    check("withdrawal_rules_fee_non_negative", sql`${t.fee_fixed_micro} >= 0 AND ${t.fee_rate_bp} >= 0 AND ${t.fee_rate_bp} <= 10000`),
    check("withdrawal_rules_min_positive", sql`${t.min_amount_micro} > 0`),
  ],
);

/** A user's request to have a deposit credited. `request_key` makes the submit idempotent. */
export const deposits = sqliteTable(
  "deposits",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    user_id: integer("user_id").notNull(),
    /** "crypto": to a deposit channel; "bank": to the platform bank account. */
    kind: text("kind", { enum: ["crypto", "bank"] }).notNull(),
    channel_id: integer("channel_id"),
    /** What the user saw: "USDT · TRC20 · T…" or the bank account, kept as shown. */
    destination: text("destination").notNull(),
    amount_micro: integer("amount_micro").notNull(),
    tx_hash: text("tx_hash").notNull().default(""),
    image_id: text("image_id").notNull(),
    /** The user's own address the money was sent to (crypto), "" for bank transfers. */
    address: text("address").notNull().default(""),
    /** review → approved | rejected; at or above the four-eyes threshold review → confirming → approved. */
    status: text("status", { enum: ["review", "confirming", "approved", "rejected"] }).notNull(),
    reason: text("reason").notNull().default(""),
    /** What the operator verified on chain or on the bank statement: the amount credited. */
    credited_micro: integer("credited_micro"),
    /** The chain transaction or bank statement reference the operator verified. */
    tx_ref: text("tx_ref").notNull().default(""),
    /** The operator who verified it first, and the second one who confirmed (four eyes). */
    approved_by: integer("approved_by"),
    confirmed_by: integer("confirmed_by"),
    /** The threshold in force at the first approval: at or above it, two operators are needed. */
    four_eyes_micro: integer("four_eyes_micro"),
    /**
     * Why a first approval waits for a second operator (`confirming`): the reasons of
     * worker/domain/deposits/four-eyes.ts, comma-separated; "" when one operator sufficed.
     */
    wait_reason: text("wait_reason").notNull().default(""),
    request_key: text("request_key").notNull(),
    request_hash: text("request_hash").notNull(),
    created_at_ms: integer("created_at_ms").notNull(),
    decided_at_ms: integer("decided_at_ms"),
  },
  (t) => [
    uniqueIndex("deposits_request_unique").on(t.user_id, t.request_key),
    // One on-chain transaction pays in once: a hash may be pending or approved on one deposit
    // per channel (a rejected deposit frees it, e.g. after a typo).
    uniqueIndex("deposits_tx_once").on(t.channel_id, t.tx_hash).where(sql`${t.kind} = 'crypto' AND ${t.status} <> 'rejected'`),
    index("deposits_user_idx").on(t.user_id, t.id),
    index("deposits_status_idx").on(t.status, t.id),
    // The rolling 24 h totals of credits one operator approved alone (the solo-credit trigger).
    index("deposits_solo_idx").on(t.approved_by, t.decided_at_ms),
    check("deposits_amount_positive", sql`${t.amount_micro} > 0`),
    check("deposits_credited_positive", sql`${t.credited_micro} IS NULL OR ${t.credited_micro} > 0`),
    // Four eyes in the database: a large credit is approved only after a second, different
    // operator confirmed it.
    check(
      "deposits_four_eyes",
      sql`${t.confirmed_by} IS NULL OR ${t.confirmed_by} <> ${t.approved_by}`,
    ),
    check(
      "deposits_large_needs_two",
      sql`${t.status} <> 'approved' OR (${t.credited_micro} IS NOT NULL AND ${t.four_eyes_micro} IS NOT NULL AND ${t.approved_by} IS NOT NULL AND (${t.credited_micro} < ${t.four_eyes_micro} OR (${t.confirmed_by} IS NOT NULL AND ${t.confirmed_by} <> ${t.approved_by})))`,
    ),
  ],
);

/** Bound withdrawal addresses. Deleting hides one; past withdrawals keep their snapshot. */
export const wallets = sqliteTable(
  "wallets",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    user_id: integer("user_id").notNull(),
    currency: text("currency").notNull(),
    chain: text("chain").notNull(),
    address: text("address").notNull(),
    created_at_ms: integer("created_at_ms").notNull(),
    /** Withdrawals to it are accepted from this time on: bound time + the waiting period then in force. */
    opens_at_ms: integer("opens_at_ms").notNull().default(0),
    deleted_at_ms: integer("deleted_at_ms"),
  },
  (t) => [
    index("wallets_user_idx").on(t.user_id),
    uniqueIndex("wallets_live_unique").on(t.user_id, t.chain, t.address).where(sql`${t.deleted_at_ms} IS NULL`),
  ],
);

export const bank_cards = sqliteTable(
  "bank_cards",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    user_id: integer("user_id").notNull(),
    name: text("name").notNull(),
    bank: text("bank").notNull(),
    /** The full number, AES-GCM encrypted under the CARD_KEY secret ("v1.<iv>.<ciphertext>"). */
    card_number: text("card_number").notNull(),
    /** HMAC of the number under the same key: finds a duplicate without decrypting. */
    card_fingerprint: text("card_fingerprint").notNull().default(""),
    /** The last four digits, for the masked number users see. */
    card_last4: text("card_last4").notNull().default(""),
    created_at_ms: integer("created_at_ms").notNull(),
    /** Withdrawals to it are accepted from this time on: bound time + the waiting period then in force. */
    opens_at_ms: integer("opens_at_ms").notNull().default(0),
    deleted_at_ms: integer("deleted_at_ms"),
  },
  (t) => [
    index("bank_cards_user_idx").on(t.user_id),
    uniqueIndex("bank_cards_live_unique").on(t.user_id, t.card_fingerprint).where(sql`${t.deleted_at_ms} IS NULL`),
  ],
);

/** Withdrawal requests. The full amount is locked at request; fee + actual = amount. */
export const withdrawals = sqliteTable(
  "withdrawals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    user_id: integer("user_id").notNull(),
    channel: text("channel", { enum: ["trc20", "bank"] }).notNull(),
    /** Where the money goes, as the user sees it (address, or bank + masked card). */
    destination: text("destination").notNull(),
    /** What the operator needs to pay it: the full address or bank + holder + card number. */
    payout_details: text("payout_details").notNull().default(""),
    amount_micro: integer("amount_micro").notNull(),
    fee_micro: integer("fee_micro").notNull(),
    actual_micro: integer("actual_micro").notNull(),
    /** The channel's terms version the fee was computed under. */
    terms_version: integer("terms_version").notNull().default(1),
    status: text("status", { enum: ["review", "paid", "rejected", "cancelled"] }).notNull(),
    tx_ref: text("tx_ref").notNull().default(""),
    reason: text("reason").notNull().default(""),
    request_key: text("request_key").notNull(),
    request_hash: text("request_hash").notNull(),
    created_at_ms: integer("created_at_ms").notNull(),
    decided_at_ms: integer("decided_at_ms"),
  },
  (t) => [
    uniqueIndex("withdrawals_request_unique").on(t.user_id, t.request_key),
    index("withdrawals_user_idx").on(t.user_id, t.id),
    index("withdrawals_status_idx").on(t.status, t.id),
    check("withdrawals_amounts", sql`${t.amount_micro} > 0 AND ${t.fee_micro} >= 0 AND ${t.actual_micro} > 0 AND ${t.fee_micro} + ${t.actual_micro} = ${t.amount_micro}`),
  ],
);

/**
 * Balance corrections. One operator proposes, a different one approves; only then a visible
 * ledger transfer moves money. The CHECK enforces the four-eyes rule in the database.
 */
export const adjustments = sqliteTable(
  "adjustments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    user_id: integer("user_id").notNull(),
    direction: text("direction", { enum: ["credit", "debit"] }).notNull(),
    amount_micro: integer("amount_micro").notNull(),
    reason: text("reason").notNull(),
    status: text("status", { enum: ["pending", "approved", "rejected"] }).notNull(),
    requested_by: integer("requested_by").notNull(),
    decided_by: integer("decided_by"),
    created_at_ms: integer("created_at_ms").notNull(),
    decided_at_ms: integer("decided_at_ms"),
  },
  (t) => [
    index("adjustments_status_idx").on(t.status, t.id),
    check("adjustments_amount_positive", sql`${t.amount_micro} > 0`),
    check("adjustments_four_eyes", sql`${t.decided_by} IS NULL OR ${t.decided_by} <> ${t.requested_by}`),
  ],
);

/**
 * Every state change of a deposit, withdrawal or adjustment. A state can be left only once
 * (UNIQUE), and the entity id comes from a subquery that finds the row only while it is in
 * `from_state`, so a change from the wrong state fails NOT NULL and rolls back its batch.
 * This is how a decision and its ledger transfer stay exactly-once without a read-then-write.
 */
export const transitions = sqliteTable(
  "transitions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    entity: text("entity").notNull(),
    entity_id: integer("entity_id").notNull(),
    from_state: text("from_state").notNull(),
    to_state: text("to_state").notNull(),
    actor_kind: text("actor_kind", { enum: ["user", "operator", "system"] }).notNull(),
    actor_id: integer("actor_id"),
    reason: text("reason").notNull().default(""),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [uniqueIndex("transitions_once").on(t.entity, t.entity_id, t.from_state)],
);

/** Images in R2 (recharge screenshots, ID photos). Served only to the owner and operators. */
export const uploads = sqliteTable(
  "uploads",
  {
    id: text("id").primaryKey(),
    user_id: integer("user_id").notNull(),
    r2_key: text("r2_key").notNull(),
    content_type: text("content_type").notNull(),
    size_bytes: integer("size_bytes").notNull(),
    width: integer("width").notNull(),
    height: integer("height").notNull(),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [index("uploads_user_idx").on(t.user_id)],
);

/**
 * How much money one operator may create alone (without a second operator), over a rolling
 * 24 hours: `deposit_operator_24h` per approving operator, `deposit_user_24h` per credited user.
 * Written only by migrations (triggers refuse updates and deletes), read by the domain to decide
 * and to show operators, and by the deposits trigger that is the final word.
 */
export const solo_credit_limits = sqliteTable("solo_credit_limits", {
  key: text("key").primaryKey(),
  micro: integer("micro").notNull(),
});
