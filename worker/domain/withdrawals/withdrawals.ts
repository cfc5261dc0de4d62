import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { bank_cards, users, wallets, withdrawal_rules, withdrawals } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { openCard, sealCard, type CardKeys } from "../crypto/sealing";
import { maskCardLast4 } from "../binding/validate";
import { platformAccount, userAccount } from "../ledger/accounts";
import { transitionInsert } from "../ledger/transitions";
import { postTransfers, type MoneyFailure, type PostResult, type Transfer } from "../ledger/transfer";
import { requestHash } from "../money/request-hash";
import { WITHDRAWAL_RULE_UNSET } from "../money/settings";
import { quoteWithdrawal, type Quote, type WithdrawalRule } from "./fees";
import { sameWithdrawalTerms, withdrawalTermsOutOfBounds, type OutOfBounds, type WithdrawalTerms } from "../terms/bounds";
import { proposeTerms } from "../terms/proposals";
import { notificationInsert } from "../notifications/notify";

export type Withdrawal = typeof withdrawals.$inferSelect;
export type Channel = "trc20" | "bank";

/** A channel's rule as it stands, with the terms version the withdrawal form names. */
export type RuleInForce = WithdrawalRule & { terms_version: number };

export async function getRules(db: Db): Promise<Record<Channel, RuleInForce>> {
  const rows = await db.select().from(withdrawal_rules);
  const of = (channel: Channel): RuleInForce => {
    const r = rows.find((x) => x.channel === channel);
    return r
      ? { fee_fixed_micro: r.fee_fixed_micro, fee_rate_bp: r.fee_rate_bp, min_amount_micro: r.min_amount_micro, enabled: r.enabled === 1, terms_version: r.terms_version }
      : { ...WITHDRAWAL_RULE_UNSET };
  };
  return { trc20: of("trc20"), bank: of("bank") };
}

export type SetRuleResult = { status: "ok" } | { status: "proposed"; proposal_id: number } | OutOfBounds;

/**
 * Saves a withdrawal channel's rule. Its open/closed switch is an operator's alone; its fees
 * and minimum are terms (decision 121): an operator's change is a proposal that a different
 * operator opens, and until then the old ones stand. `operator_id` null (the seed, a script)
 * writes the terms at once with a new version.
 */
export async function setRule(db: Db, operator_id: number | null, channel: Channel, rule: WithdrawalRule, reason: string, now_ms: number): Promise<SetRuleResult> {
  const terms: WithdrawalTerms = { fee_fixed_micro: rule.fee_fixed_micro, fee_rate_bp: rule.fee_rate_bp, min_amount_micro: rule.min_amount_micro };
  const bounds = withdrawalTermsOutOfBounds(terms);
  if (bounds) return bounds;
  const current = (await getRules(db))[channel];
  const changed = !sameWithdrawalTerms(current, terms);
  if (operator_id === null) {
    const values = { ...terms, enabled: rule.enabled ? 1 : 0, updated_at_ms: now_ms, ...(changed ? { terms_version: current.terms_version + 1, terms_by: null, terms_opened_by: null } : {}) };
    await db.insert(withdrawal_rules).values({ channel, ...values }).onConflictDoUpdate({ target: withdrawal_rules.channel, set: values });
    return { status: "ok" };
  }
  // The switch now (an existing channel only: a new one opens with its first terms).
  if (current.terms_version > 0) {
    await db.batch([
      db.update(withdrawal_rules).set({ enabled: rule.enabled ? 1 : 0, updated_at_ms: now_ms }).where(eq(withdrawal_rules.channel, channel)),
      auditInsert(db, { operator_id, action: "config.withdrawal_rule", target: channel, reason, data: { enabled: rule.enabled } }, now_ms),
    ]);
  }
  if (!changed) return { status: "ok" };
  const { enabled: _enabled, terms_version: base_version, ...before } = current;
  const proposal = await proposeTerms(db, operator_id, { kind: "withdrawal", target: channel, terms, before: base_version > 0 ? before : null, base_version }, reason, now_ms);
  return { status: "proposed", proposal_id: proposal.id };
}

export type RequestWithdrawal = {
  user_id: number;
  amount_micro: number;
  wallet_id: number | null;
  bank_id: number | null;
  request_key: string;
  /** Card keys (crypto/sealing.ts): a bank withdrawal opens the card and seals its payout details. */
  card_keys: CardKeys | null;
  /** The channel's terms version the form showed (its fee and minimum); absent: the terms in force. */
  terms_version?: number;
};

export type RequestResult =
  | { status: "ok"; withdrawal: Withdrawal; replayed: boolean }
  | { status: "paused"; until_ms: number }
  | { status: "destination_waiting"; opens_at_ms: number }
  | { status: "target_unknown" | "idempotency_conflict" | "fee_exceeds_amount" | "channel_disabled" | "insufficient_funds" | "card_unavailable" }
  | { status: "below_minimum"; min_amount_micro: number }
  | { status: "terms_changed"; rule: RuleInForce };

/**
 * Requests a withdrawal: the whole amount moves from available to locked_withdrawal in the
 * same batch that records the request, so it is reserved before an operator sees it. The
 * database refuses an overdraft; the client's key refuses a second copy of the request; and
 * the pause after a password change is checked inside the batch too (see `pausedGuardUserId`).
 */
export async function requestWithdrawal(db: Db, input: RequestWithdrawal, now_ms: number): Promise<RequestResult> {
  const hash = requestHash({ amount_micro: input.amount_micro, wallet_id: input.wallet_id, bank_id: input.bank_id });
  const existing = await findByRequest(db, input.user_id, input.request_key);
  if (existing) return existing.request_hash === hash ? { status: "ok", withdrawal: existing, replayed: true } : { status: "idempotency_conflict" };

  const target = await resolveTarget(db, input);
  if (target.status !== "ok") return target;
  // The allow-list: a destination bound recently opens only after its waiting period.
  if (target.opens_at_ms > now_ms) return { status: "destination_waiting", opens_at_ms: target.opens_at_ms };
  const rule = (await getRules(db))[target.channel];
  // The fee the user was shown is the fee charged: a rule opened since refuses the request.
  if (input.terms_version !== undefined && input.terms_version !== rule.terms_version) return { status: "terms_changed", rule };
  const quote = quoteWithdrawal(rule, input.amount_micro);
  if (quote.status !== "ok") return quote;

  const r = await postLocked(db, [lockTransfer(input, quote.amount_micro)], [withdrawalInsert(db, input, target, quote, rule.terms_version, hash, now_ms)], now_ms);
  if (r.status === "paused") return { status: "paused", until_ms: await pausedUntil(db, input.user_id) };
  if (r.status === "duplicate_request" || r.status === "duplicate") {
    const raced = await findByRequest(db, input.user_id, input.request_key);
    if (raced) return raced.request_hash === hash ? { status: "ok", withdrawal: raced, replayed: true } : { status: "idempotency_conflict" };
  }
  if (r.status === "insufficient_funds") return { status: "insufficient_funds" };
  if (r.status !== "ok") throw new Error(`requestWithdrawal: unexpected ${r.status}`);
  return { status: "ok", withdrawal: (await findByRequest(db, input.user_id, input.request_key))!, replayed: false };
}

/** The whole amount, from available to locked_withdrawal, referring to the row inserted alongside. */
function lockTransfer(input: RequestWithdrawal, amount_micro: number): Transfer {
  const withdrawal_id = sql`(SELECT id FROM withdrawals WHERE user_id = ${input.user_id} AND request_key = ${input.request_key})`;
  return {
    key: `withdrawal:${input.user_id}:${input.request_key}:lock`,
    debit: userAccount(input.user_id, "available"),
    credit: userAccount(input.user_id, "locked_withdrawal"),
    amount_micro,
    code: "withdrawal_lock",
    ref_type: "withdrawal",
    ref_id: sql`CAST(${withdrawal_id} AS TEXT)` as unknown as string,
  };
}

/** The request's row: first in its batch, so the pause guard refuses before anything moves. */
function withdrawalInsert(db: Db, input: RequestWithdrawal, target: Extract<Target, { status: "ok" }>, quote: Extract<Quote, { status: "ok" }>, terms_version: number, hash: string, now_ms: number) {
  return db.insert(withdrawals).values({
    user_id: pausedGuardUserId(input.user_id, now_ms),
    channel: target.channel,
    destination: target.destination,
    payout_details: target.payout_details,
    amount_micro: quote.amount_micro,
    fee_micro: quote.fee_micro,
    actual_micro: quote.actual_micro,
    terms_version,
    status: "review",
    request_key: input.request_key,
    request_hash: hash,
    created_at_ms: now_ms,
  });
}

/**
 * The user id, only while withdrawals are not paused; NULL otherwise, which fails the
 * withdrawal's NOT NULL first in its batch and so rolls back the lock with it. Read in the
 * batch itself: a password change that lands between a read and the write cannot slip by.
 */
function pausedGuardUserId(user_id: number, now_ms: number): number {
  return sql`(SELECT id FROM users WHERE id = ${user_id} AND withdraw_paused_until_ms <= ${now_ms})` as unknown as number;
}

const PAUSED_REFUSAL = "NOT NULL constraint failed: withdrawals.user_id";

/** postTransfers, with the pause guard's refusal named as well. */
async function postLocked(...args: Parameters<typeof postTransfers>): Promise<PostResult | { status: "paused" }> {
  try {
    return await postTransfers(...args);
  } catch (err) {
    for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
      if (String((e as { message?: unknown }).message ?? "").includes(PAUSED_REFUSAL)) return { status: "paused" };
    }
    throw err;
  }
}

async function pausedUntil(db: Db, user_id: number): Promise<number> {
  const user = await db.query.users.findFirst({ where: eq(users.id, user_id), columns: { withdraw_paused_until_ms: true } });
  return user?.withdraw_paused_until_ms ?? 0;
}

type Target = { status: "ok"; channel: Channel; destination: string; payout_details: string; opens_at_ms: number } | { status: "target_unknown" | "card_unavailable" };

async function resolveTarget(db: Db, input: RequestWithdrawal): Promise<Target> {
  if ((input.wallet_id === null) === (input.bank_id === null)) return { status: "target_unknown" }; // exactly one target
  if (input.wallet_id !== null) {
    const w = await db.query.wallets.findFirst({ where: and(eq(wallets.id, input.wallet_id), eq(wallets.user_id, input.user_id), isNull(wallets.deleted_at_ms)) });
    if (!w || w.chain !== "TRC20") return { status: "target_unknown" };
    const destination = `${w.currency} · ${w.chain} · ${w.address}`;
    return { status: "ok", channel: "trc20", destination, payout_details: destination, opens_at_ms: w.opens_at_ms };
  }
  const b = await db.query.bank_cards.findFirst({ where: and(eq(bank_cards.id, input.bank_id!), eq(bank_cards.user_id, input.user_id), isNull(bank_cards.deleted_at_ms)) });
  if (!b) return { status: "target_unknown" };
  // Users see the card masked; the operator who pays needs the whole number, sealed at rest.
  const number = await openCard(input.card_keys, b.card_number);
  if (number.status !== "ok" || !input.card_keys) return { status: "card_unavailable" };
  const payout_details = await sealCard(input.card_keys, `${b.bank} · ${b.name} · ${number.text}`);
  return { status: "ok", channel: "bank", destination: `${b.bank} · ${b.name} · ${maskCardLast4(b.card_last4)}`, payout_details, opens_at_ms: b.opens_at_ms };
}

/**
 * What the operator who pays reads: the full payout details, opened (rows from before
 * encryption are plain). Null when they cannot be opened: no key here, or altered at rest.
 */
export async function payoutDetailsFor(keys: CardKeys | null, w: Pick<Withdrawal, "payout_details">): Promise<string | null> {
  const opened = await openCard(keys, w.payout_details);
  return opened.status === "ok" ? opened.text : null;
}

function findByRequest(db: Db, user_id: number, request_key: string) {
  return db.query.withdrawals.findFirst({ where: and(eq(withdrawals.user_id, user_id), eq(withdrawals.request_key, request_key)) });
}

export type DecideResult = { status: "ok"; withdrawal: Withdrawal } | { status: "not_found" } | { status: MoneyFailure };

/** Unlocks the whole amount back to available. One key for cancel and reject: only one can happen. */
function releaseTransfer(w: Withdrawal): Transfer {
  return {
    key: `withdrawal:${w.id}:release`,
    debit: userAccount(w.user_id, "locked_withdrawal"),
    credit: userAccount(w.user_id, "available"),
    amount_micro: w.amount_micro,
    code: "withdrawal_release",
    ref_type: "withdrawal",
    ref_id: String(w.id),
  };
}

/** The user cancels their own request while it is in review. */
export async function cancelWithdrawal(db: Db, user_id: number, id: number, now_ms: number): Promise<DecideResult> {
  const w = await db.query.withdrawals.findFirst({ where: and(eq(withdrawals.id, id), eq(withdrawals.user_id, user_id)) });
  if (!w) return { status: "not_found" };
  return decide(db, w, [releaseTransfer(w)], [
    transitionInsert(db, { entity: "withdrawal", id, from: "review", to: "cancelled", actor_kind: "user", actor_id: user_id, owner_user_id: user_id }, now_ms),
    db.update(withdrawals).set({ status: "cancelled", decided_at_ms: now_ms }).where(and(eq(withdrawals.id, id), eq(withdrawals.status, "review"))),
  ], now_ms);
}

export async function rejectWithdrawal(db: Db, operator_id: number, id: number, reason: string, now_ms: number): Promise<DecideResult> {
  const w = await db.query.withdrawals.findFirst({ where: eq(withdrawals.id, id) });
  if (!w) return { status: "not_found" };
  return decide(db, w, [releaseTransfer(w)], [
    transitionInsert(db, { entity: "withdrawal", id, from: "review", to: "rejected", actor_kind: "operator", actor_id: operator_id, reason }, now_ms),
    db.update(withdrawals).set({ status: "rejected", reason, decided_at_ms: now_ms }).where(and(eq(withdrawals.id, id), eq(withdrawals.status, "review"))),
    auditInsert(db, { operator_id, action: "withdrawal.reject", target: `withdrawal:${id}`, reason, data: { user_id: w.user_id, amount_micro: w.amount_micro } }, now_ms),
    withdrawalNotice(db, w, "rejected", now_ms),
  ], now_ms);
}

/** Marks a withdrawal paid with the chain's or bank's reference: the locked money leaves. */
export async function payWithdrawal(db: Db, operator_id: number, id: number, tx_ref: string, now_ms: number): Promise<DecideResult> {
  const w = await db.query.withdrawals.findFirst({ where: eq(withdrawals.id, id) });
  if (!w) return { status: "not_found" };
  const transfers: Transfer[] = [
    { key: `withdrawal:${id}:payout`, debit: userAccount(w.user_id, "locked_withdrawal"), credit: platformAccount("withdrawals"), amount_micro: w.actual_micro, code: "withdrawal_payout", ref_type: "withdrawal", ref_id: String(id) },
  ];
  if (w.fee_micro > 0) {
    transfers.push({ key: `withdrawal:${id}:fee`, debit: userAccount(w.user_id, "locked_withdrawal"), credit: platformAccount("fees"), amount_micro: w.fee_micro, code: "withdrawal_fee", ref_type: "withdrawal", ref_id: String(id) });
  }
  return decide(db, w, transfers, [
    transitionInsert(db, { entity: "withdrawal", id, from: "review", to: "paid", actor_kind: "operator", actor_id: operator_id, reason: tx_ref }, now_ms),
    db.update(withdrawals).set({ status: "paid", tx_ref, decided_at_ms: now_ms }).where(and(eq(withdrawals.id, id), eq(withdrawals.status, "review"))),
    auditInsert(db, { operator_id, action: "withdrawal.pay", target: `withdrawal:${id}`, reason: tx_ref, data: { user_id: w.user_id, amount_micro: w.amount_micro, fee_micro: w.fee_micro } }, now_ms),
    withdrawalNotice(db, w, "paid", now_ms),
  ], now_ms);
}

/** The user's notice of the decision, in the decision's batch; keyed by the withdrawal, so a replay adds none. */
function withdrawalNotice(db: Db, w: Withdrawal, outcome: "paid" | "rejected", now_ms: number) {
  return notificationInsert(db, { user_id: w.user_id, kind: `withdrawal_${outcome}`, params: { withdrawal_id: w.id, amount_micro: String(w.amount_micro) }, dedupe_key: `withdrawal:${w.id}:${outcome}`, now_ms });
}

async function decide(db: Db, w: Withdrawal, transfers: Transfer[], alongside: Parameters<typeof postTransfers>[2], now_ms: number): Promise<DecideResult> {
  const r = await postTransfers(db, transfers, alongside, now_ms);
  if (r.status !== "ok") return r;
  return { status: "ok", withdrawal: (await db.query.withdrawals.findFirst({ where: eq(withdrawals.id, w.id) }))! };
}

export async function listUserWithdrawals(db: Db, user_id: number, page: { page_no: number; row: number }) {
  const items = await db.select().from(withdrawals).where(eq(withdrawals.user_id, user_id)).orderBy(desc(withdrawals.id)).limit(page.row).offset((page.page_no - 1) * page.row);
  const [{ total }] = await db.select({ total: sql<number>`count(*)` }).from(withdrawals).where(eq(withdrawals.user_id, user_id));
  return { items, total };
}

export async function listWithdrawalsByStatus(db: Db, status: Withdrawal["status"] | "all", page: { page_no: number; row: number }) {
  const where = status === "all" ? undefined : eq(withdrawals.status, status);
  const items = await db.select().from(withdrawals).where(where).orderBy(status === "review" ? asc(withdrawals.id) : desc(withdrawals.id)).limit(page.row).offset((page.page_no - 1) * page.row);
  const [{ total }] = await db.select({ total: sql<number>`count(*)` }).from(withdrawals).where(where);
  return { items, total };
}

export type { Quote };
