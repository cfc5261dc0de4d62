import { and, asc, eq, inArray, or, gt, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { promotion_bookings, promotions } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { openState } from "../audit/second-operator";
import { bookable } from "./bonus";
import type { PromotionTexts } from "./texts";
import { refusedBy } from "../../db/refusal";

export type Promotion = typeof promotions.$inferSelect;
export type Booking = typeof promotion_bookings.$inferSelect;

export type PromotionInput = {
  kind: "recharge_bonus";
  texts: PromotionTexts;
  percent_bp: number;
  cap_micro: number;
  min_deposit_micro: number;
  starts_at_ms: number;
  ends_at_ms: number;
  enabled: boolean;
  sort: number;
};

export type SaveResult = { status: "ok"; promotion: Promotion } | { status: "not_found" | "terms_frozen" | "four_eyes_same_operator" };

export async function getPromotion(db: Db, id: number): Promise<Promotion | null> {
  return (await db.query.promotions.findFirst({ where: eq(promotions.id, id) })) ?? null;
}

/** What decides what a promotion pays: a change needs a second operator to reopen it. */
function termsChanged(before: Promotion, input: PromotionInput): boolean {
  return before.kind !== input.kind || before.percent_bp !== input.percent_bp || before.cap_micro !== input.cap_micro || before.min_deposit_micro !== input.min_deposit_micro || before.starts_at_ms !== input.starts_at_ms || before.ends_at_ms !== input.ends_at_ms;
}

/** The money terms, frozen once a bonus is pending or paid (also a trigger in D1). */
function moneyTermsChanged(before: Promotion, input: PromotionInput): boolean {
  return before.percent_bp !== input.percent_bp || before.cap_micro !== input.cap_micro || before.min_deposit_micro !== input.min_deposit_micro;
}

function columns(input: PromotionInput) {
  const { texts, enabled: _enabled, ...rest } = input;
  return { ...rest, texts_json: JSON.stringify(texts) };
}

/**
 * Creates (id null) or edits a promotion, audited with what was before when an operator does
 * it (operator null: the demo seed). New or changed terms leave it closed until a different
 * operator opens it (worker/domain/audit/second-operator.ts): otherwise one operator could set
 * a generous bonus and grant it to an account they control.
 */
export async function savePromotion(db: Db, operator_id: number | null, id: number | null, input: PromotionInput, reason: string, now_ms: number): Promise<SaveResult> {
  if (id === null) return createPromotion(db, operator_id, input, reason, now_ms);
  const before = await getPromotion(db, id);
  if (!before) return { status: "not_found" };
  if (moneyTermsChanged(before, input) && (await countPaid(db, id)) > 0) return { status: "terms_frozen" };
  const state = openState(operator_id, before, input.enabled, termsChanged(before, input));
  if (!state) return { status: "four_eyes_same_operator" };
  const update = db.update(promotions).set({ ...columns(input), ...state }).where(eq(promotions.id, id)).returning();
  const audit = operator_id === null ? [] : [auditInsert(db, { operator_id, action: "promotion.update", target: `promotion:${id}`, reason, data: { before, after: input } }, now_ms)];
  try {
    const [rows] = await db.batch([update, ...audit] as unknown as [typeof update]);
    return { status: "ok", promotion: rows[0] };
  } catch (err) {
    // A grant landed between the count and the update: the trigger kept the terms.
    if (raised(err, "promotion_terms_frozen")) return { status: "terms_frozen" };
    throw err;
  }
}

/** The insert and its audit entry in one batch, so a promotion never exists without its entry. */
async function createPromotion(db: Db, operator_id: number | null, input: PromotionInput, reason: string, now_ms: number): Promise<SaveResult> {
  const insert = db.insert(promotions).values({ ...columns(input), ...openState(operator_id, null, input.enabled, true)!, created_at_ms: now_ms }).returning();
  if (operator_id === null) return { status: "ok", promotion: (await insert)[0] };
  // The id is not known before the insert; in the same batch (one transaction, in order)
  // last_insert_rowid() is the promotion just inserted.
  const target = sql`'promotion:' || last_insert_rowid()` as unknown as string;
  const [[row]] = await db.batch([insert, auditInsert(db, { operator_id, action: "promotion.create", target, reason, data: input }, now_ms)]);
  return { status: "ok", promotion: row };
}

function raised(err: unknown, name: string): boolean {
  return refusedBy(err, [[name, "raised"]]) !== null;
}

/** Bonuses pending or paid under a promotion (while above 0 its money terms are frozen). */
export async function countPaid(db: Db, promotion_id: number): Promise<number> {
  const [{ n }] = await db.select({ n: sql<number>`count(*)` }).from(promotion_bookings).where(and(eq(promotion_bookings.promotion_id, promotion_id), inArray(promotion_bookings.status, ["pending", "granted"])));
  return n;
}

export type PromotionCounts = { booked: number; pending: number; granted: number; declined: number };

/** Every promotion for the console, with how many bookings stand in each state. */
export async function listPromotionsForConsole(db: Db): Promise<{ promotion: Promotion; counts: PromotionCounts }[]> {
  const [rows, counts] = await db.batch([
    db.select().from(promotions).orderBy(asc(promotions.sort), asc(promotions.id)),
    db.select({ id: promotion_bookings.promotion_id, status: promotion_bookings.status, n: sql<number>`count(*)` }).from(promotion_bookings).groupBy(promotion_bookings.promotion_id, promotion_bookings.status),
  ]);
  return rows.map((promotion) => {
    const c: PromotionCounts = { booked: 0, pending: 0, granted: 0, declined: 0 };
    for (const r of counts) if (r.id === promotion.id) c[r.status] = r.n;
    return { promotion, counts: c };
  });
}

/**
 * What a user sees: open promotions whose period has not ended, and any promotion they booked
 * (so a grant or a decline stays visible after it closes), each with their own booking.
 */
export async function listForUser(db: Db, user_id: number, now_ms: number): Promise<{ promotion: Promotion; booking: Booking | null }[]> {
  // A subquery rather than a list of ids: D1 takes at most 100 bound parameters.
  const booked = db.select({ id: promotion_bookings.promotion_id }).from(promotion_bookings).where(eq(promotion_bookings.user_id, user_id));
  const visible = or(and(eq(promotions.enabled, 1), gt(promotions.ends_at_ms, now_ms)), inArray(promotions.id, booked));
  const [mine, rows] = await db.batch([
    db.select().from(promotion_bookings).where(eq(promotion_bookings.user_id, user_id)),
    db.select().from(promotions).where(visible).orderBy(asc(promotions.sort), asc(promotions.id)),
  ]);
  return rows.map((promotion) => ({ promotion, booking: mine.find((b) => b.promotion_id === promotion.id) ?? null }));
}

export type BookResult = { status: "ok"; booking: Booking } | { status: "not_found" | "promotion_closed" | "promotion_not_started" | "promotion_ended" };

/**
 * Books the appointment with customer service. Idempotent: a second call answers the same
 * booking (even once the promotion closed); a first one needs the promotion open and in period.
 */
export async function bookPromotion(db: Db, user_id: number, promotion_id: number, now_ms: number): Promise<BookResult> {
  const promotion = await getPromotion(db, promotion_id);
  if (!promotion) return { status: "not_found" };
  const existing = await findBooking(db, promotion_id, user_id);
  if (existing) return { status: "ok", booking: existing };
  const open = bookable(promotion, now_ms);
  if (open !== "ok") return { status: open };
  await db.insert(promotion_bookings).values({ promotion_id, user_id, status: "booked", booked_at_ms: now_ms }).onConflictDoNothing();
  return { status: "ok", booking: (await findBooking(db, promotion_id, user_id))! };
}

export async function findBooking(db: Db, promotion_id: number, user_id: number): Promise<Booking | null> {
  return (await db.query.promotion_bookings.findFirst({ where: and(eq(promotion_bookings.promotion_id, promotion_id), eq(promotion_bookings.user_id, user_id)) })) ?? null;
}
