import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Where users send money in: a crypto address per currency and chain (operator config). */
export const deposit_channels = sqliteTable(
  "deposit_channels",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    currency: text("currency").notNull(),
    chain: text("chain").notNull(),
    address: text("address").notNull(),
    min_amount_micro: integer("min_amount_micro").notNull(),
    enabled: integer("enabled").notNull().default(1),
    sort: integer("sort").notNull().default(0),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [check("deposit_channels_min_positive", sql`${t.min_amount_micro} > 0`)],
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
    status: text("status", { enum: ["review", "approved", "rejected"] }).notNull(),
    reason: text("reason").notNull().default(""),
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
    check("deposits_amount_positive", sql`${t.amount_micro} > 0`),
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
    card_number: text("card_number").notNull(),
    created_at_ms: integer("created_at_ms").notNull(),
    deleted_at_ms: integer("deleted_at_ms"),
  },
  (t) => [
    index("bank_cards_user_idx").on(t.user_id),
    uniqueIndex("bank_cards_live_unique").on(t.user_id, t.card_number).where(sql`${t.deleted_at_ms} IS NULL`),
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
