/**
 * Operators' decisions on bookings, from the customer-service conversation. A bonus is always
 * computed from one of the user's qualifying deposits (bonus.ts), paid as one visible ledger
 * transfer from platform:promotions, at most once per user and promotion (the booking's state
 * guard and the transfer key) and once per deposit (a unique index). At or above the
 * threshold (four-eyes.ts) the first operator only proposes it (`pending`) and a different
 * operator confirms; the CHECKs on promotion_bookings are the final word on that rule.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { deposits, promotion_bookings, transitions, users } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { platformAccount, userAccount } from "../ledger/accounts";
import { postTransfers, type MoneyFailure, type Transfer } from "../ledger/transfer";
import { bonusFor, eligibility, type Eligibility } from "./bonus";
import { getPromotionFourEyes } from "./four-eyes";
import { findBooking, getPromotion, type Booking, type Promotion } from "./promotions";
import { refusedBy } from "../../db/refusal";

export type GrantFailure =
  | "not_found"
  | "not_booked"
  | "promotion_closed"
  | "deposit_used"
  | "four_eyes_same_operator"
  | "four_eyes_required"
  | Exclude<Eligibility, "ok">
  | MoneyFailure;

export type DecideResult = { status: "ok"; booking: Booking } | { status: GrantFailure };

/** The guard of a booking's state change (first in its batch): NULL, so a failed batch, unless the booking is in `from`. */
function guard(db: Db, b: Booking, from: Booking["status"], to: Booking["status"], operator_id: number, now_ms: number, reason = "") {
  return db.insert(transitions).values({
    entity: "promotion_booking",
    entity_id: sql`(SELECT id FROM promotion_bookings WHERE id = ${b.id} AND status = ${from})` as unknown as number,
    from_state: from,
    to_state: to,
    actor_kind: "operator",
    actor_id: operator_id,
    reason,
    created_at_ms: now_ms,
  });
}

function bonusTransfer(b: { promotion_id: number; user_id: number }, deposit_id: number, amount_micro: number): Transfer {
  return {
    // One bonus per user and promotion, whatever else happens: the ledger refuses a second key.
    key: `promotion:${b.promotion_id}:user:${b.user_id}`,
    debit: platformAccount("promotions"),
    credit: userAccount(b.user_id, "available"),
    amount_micro,
    code: "promotion_bonus",
    ref_type: "promotion",
    ref_id: `${b.promotion_id}:deposit:${deposit_id}`,
  };
}

/** The named refusals of the booking's unique index and CHECKs. */
const BOOKING_REFUSALS = [
  ["promotion_bookings.deposit_id", "deposit_used"],
  ["promotion_bookings_four_eyes", "four_eyes_same_operator"],
  ["promotion_bookings_large_needs_two", "four_eyes_required"],
] as const;

async function commit(db: Db, id: number, transfers: Transfer[], alongside: BatchItem<"sqlite">[], now_ms: number): Promise<DecideResult> {
  let r;
  try {
    r = await postTransfers(db, transfers, alongside, now_ms);
  } catch (err) {
    const failure = refusedBy(err, BOOKING_REFUSALS);
    if (failure) return { status: failure };
    throw err;
  }
  if (r.status !== "ok") return r;
  return { status: "ok", booking: (await db.query.promotion_bookings.findFirst({ where: eq(promotion_bookings.id, id) }))! };
}

type Deposit = typeof deposits.$inferSelect;

/** The deposit and the bonus it gives under the promotion, or why it cannot back one. */
async function qualifying(db: Db, p: Promotion, user_id: number, deposit_id: number): Promise<{ status: "ok"; deposit: Deposit; bonus_micro: number } | { status: Exclude<Eligibility, "ok"> }> {
  const d = await db.query.deposits.findFirst({ where: eq(deposits.id, deposit_id) });
  if (!d) return { status: "deposit_not_yours" };
  const e = eligibility(d, user_id, p);
  if (e !== "ok") return { status: e };
  const bonus_micro = bonusFor(d.credited_micro!, p);
  return bonus_micro > 0 ? { status: "ok", deposit: d, bonus_micro } : { status: "deposit_below_minimum" };
}

/**
 * Grants the bonus of a booked user for one deposit. The amount comes from the deposit and the
 * promotion's terms only. The promotion must be open: terms one operator changed close it, so
 * no grant runs on terms a second operator has not opened.
 */
export async function grantBonus(db: Db, operator_id: number, input: { promotion_id: number; user_id: number; deposit_id: number }, now_ms: number): Promise<DecideResult> {
  const p = await getPromotion(db, input.promotion_id);
  if (!p) return { status: "not_found" };
  if (p.enabled !== 1) return { status: "promotion_closed" };
  const b = await findBooking(db, input.promotion_id, input.user_id);
  if (!b) return { status: "not_booked" };
  if (b.status !== "booked") return { status: "state_conflict" };
  const q = await qualifying(db, p, input.user_id, input.deposit_id);
  if (q.status !== "ok") return q;
  const threshold = await getPromotionFourEyes(db);
  const large = q.bonus_micro >= threshold;
  const to = large ? "pending" : "granted";
  const data = { user_id: b.user_id, promotion_id: p.id, deposit_id: q.deposit.id, credited_micro: q.deposit.credited_micro, percent_bp: p.percent_bp, cap_micro: p.cap_micro, bonus_micro: q.bonus_micro, four_eyes_micro: threshold };
  return commit(
    db,
    b.id,
    large ? [] : [bonusTransfer(b, q.deposit.id, q.bonus_micro)],
    [
      guard(db, b, "booked", to, operator_id, now_ms),
      db
        .update(promotion_bookings)
        .set({ status: to, deposit_id: q.deposit.id, bonus_micro: q.bonus_micro, granted_by: operator_id, four_eyes_micro: threshold, ...(large ? {} : { decided_at_ms: now_ms }) })
        .where(and(eq(promotion_bookings.id, b.id), eq(promotion_bookings.status, "booked"))),
      auditInsert(db, { operator_id, action: large ? "promotion.grant_first" : "promotion.grant", target: `promotion_booking:${b.id}`, data }, now_ms),
    ],
    now_ms,
  );
}

/** A different operator confirms a pending (large) bonus: only then the money moves. */
export async function confirmBonus(db: Db, operator_id: number, booking_id: number, now_ms: number): Promise<DecideResult> {
  const b = await db.query.promotion_bookings.findFirst({ where: eq(promotion_bookings.id, booking_id) });
  if (!b) return { status: "not_found" };
  if (b.status !== "pending") return { status: "state_conflict" };
  if (b.granted_by === operator_id) return { status: "four_eyes_same_operator" };
  return commit(
    db,
    b.id,
    [bonusTransfer(b, b.deposit_id!, b.bonus_micro!)],
    [
      guard(db, b, "pending", "granted", operator_id, now_ms),
      db.update(promotion_bookings).set({ status: "granted", confirmed_by: operator_id, decided_at_ms: now_ms }).where(and(eq(promotion_bookings.id, b.id), eq(promotion_bookings.status, "pending"))),
      auditInsert(db, { operator_id, action: "promotion.grant_confirm", target: `promotion_booking:${b.id}`, data: { user_id: b.user_id, promotion_id: b.promotion_id, deposit_id: b.deposit_id, bonus_micro: b.bonus_micro } }, now_ms),
    ],
    now_ms,
  );
}

/**
 * Declines a booking, or rejects a pending bonus, with a reason the user reads. Final: nothing
 * was paid, and a declined booking is never granted later (its deposit is free for another).
 */
export async function declineBooking(db: Db, operator_id: number, booking_id: number, reason: string, now_ms: number): Promise<DecideResult> {
  const b = await db.query.promotion_bookings.findFirst({ where: eq(promotion_bookings.id, booking_id) });
  if (!b) return { status: "not_found" };
  if (b.status !== "booked" && b.status !== "pending") return { status: "state_conflict" };
  return commit(
    db,
    b.id,
    [],
    [
      guard(db, b, b.status, "declined", operator_id, now_ms, reason),
      db.update(promotion_bookings).set({ status: "declined", declined_by: operator_id, decline_reason: reason, decided_at_ms: now_ms }).where(and(eq(promotion_bookings.id, b.id), eq(promotion_bookings.status, b.status))),
      auditInsert(db, { operator_id, action: b.status === "pending" ? "promotion.grant_reject" : "promotion.decline", target: `promotion_booking:${b.id}`, reason, data: { user_id: b.user_id, promotion_id: b.promotion_id, deposit_id: b.deposit_id, bonus_micro: b.bonus_micro } }, now_ms),
    ],
    now_ms,
  );
}

export type PanelDeposit = { deposit: Deposit; bonus_micro: number; eligibility: Eligibility; used: boolean };

/**
 * What an operator needs beside a conversation: the user's booking and their latest deposits,
 * each with the bonus it would give, whether it qualifies, and whether it already backs a bonus.
 */
export async function promotionPanel(db: Db, promotion_id: number, user_id: number): Promise<{ status: "ok"; promotion: Promotion; booking: Booking | null; deposits: PanelDeposit[]; threshold_micro: number } | { status: "not_found" }> {
  const p = await getPromotion(db, promotion_id);
  if (!p || !(await db.query.users.findFirst({ where: eq(users.id, user_id), columns: { id: true } }))) return { status: "not_found" };
  const [booking, rows, used, threshold_micro] = await Promise.all([
    findBooking(db, promotion_id, user_id),
    db.select().from(deposits).where(eq(deposits.user_id, user_id)).orderBy(desc(deposits.id)).limit(20),
    db.select({ deposit_id: promotion_bookings.deposit_id }).from(promotion_bookings).where(and(eq(promotion_bookings.user_id, user_id), sql`${promotion_bookings.status} IN ('pending', 'granted')`)),
    getPromotionFourEyes(db),
  ]);
  const usedIds = new Set(used.map((u) => u.deposit_id));
  const list = rows.map((d) => {
    const e = eligibility(d, user_id, p);
    return { deposit: d, eligibility: e, bonus_micro: e === "ok" ? bonusFor(d.credited_micro!, p) : 0, used: usedIds.has(d.id) };
  });
  return { status: "ok", promotion: p, booking, deposits: list, threshold_micro };
}

/** Bookings of one promotion (or every pending bonus), newest first, with the user's account. */
export async function listBookings(db: Db, q: { promotion_id?: number; status?: Booking["status"]; limit: number }) {
  const where = and(q.promotion_id === undefined ? undefined : eq(promotion_bookings.promotion_id, q.promotion_id), q.status === undefined ? undefined : eq(promotion_bookings.status, q.status));
  return db
    .select({ booking: promotion_bookings, account: users.account })
    .from(promotion_bookings)
    .leftJoin(users, eq(users.id, promotion_bookings.user_id))
    .where(where)
    .orderBy(desc(promotion_bookings.id))
    .limit(q.limit);
}
