import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { orders, self_exclusions, trading_limits } from "../../db/schema";
import { refusedBy } from "../../db/refusal";
import { notificationInsert } from "../notifications/notify";
import { applyChange, EXCLUSION_DAYS, inForce, LIMIT_KINDS, NO_LIMIT, pendingAt, periodEnd, periodOf, periodStart, type ExclusionKind, type LimitKind, type LimitRow } from "./rules";

export type LimitView = { kind: LimitKind; value: number | null; pending: { value: number | null; effective_at_ms: number } | null };
export type Exclusion = typeof self_exclusions.$inferSelect;

async function rowsOf(db: Db, user_id: number): Promise<Map<LimitKind, LimitRow>> {
  const rows = await db.select().from(trading_limits).where(eq(trading_limits.user_id, user_id));
  return new Map(rows.map((r) => [r.kind, { value: r.value, pending_value: r.pending_value, pending_at_ms: r.pending_at_ms }]));
}

/** Every limit with the value in force at `now` and any change still waiting. */
export async function readLimits(db: Db, user_id: number, now_ms: number): Promise<LimitView[]> {
  const rows = await rowsOf(db, user_id);
  return LIMIT_KINDS.map((kind) => {
    const row = rows.get(kind) ?? NO_LIMIT;
    return { kind, value: inForce(row, now_ms), pending: pendingAt(row, now_ms) };
  });
}

/** Applies the asked changes (null removes) in one batch; answers the limits after it. */
export async function setLimits(db: Db, user_id: number, changes: Partial<Record<LimitKind, number | null>>, now_ms: number): Promise<LimitView[]> {
  const rows = await rowsOf(db, user_id);
  const writes = (Object.entries(changes) as [LimitKind, number | null][]).map(([kind, next]) => {
    const row = applyChange(rows.get(kind) ?? NO_LIMIT, next, now_ms);
    return db
      .insert(trading_limits)
      .values({ user_id, kind, ...row, updated_at_ms: now_ms })
      .onConflictDoUpdate({ target: [trading_limits.user_id, trading_limits.kind], set: { ...row, updated_at_ms: now_ms } });
  });
  if (writes.length > 0) await db.batch(writes as [(typeof writes)[number], ...typeof writes]);
  return readLimits(db, user_id, now_ms);
}

/** The cool-off or exclusion in force at `now`, if any. */
export async function activeExclusion(db: Db, user_id: number, now_ms: number): Promise<Exclusion | null> {
  return (await db.query.self_exclusions.findFirst({ where: and(eq(self_exclusions.user_id, user_id), gt(self_exclusions.until_ms, now_ms)) })) ?? null;
}

/**
 * Starts a cool-off or exclusion of `days` from now. One already running ends at the later of
 * the two ends (the table's trigger refuses anything else), so asking again never shortens it.
 */
export async function selfExclude(db: Db, user_id: number, kind: ExclusionKind, days: number, now_ms: number): Promise<Exclusion> {
  const until_ms = now_ms + days * 86_400_000;
  const later = sql`excluded.until_ms > ${self_exclusions.until_ms}`;
  await db
    .insert(self_exclusions)
    .values({ user_id, kind, started_at_ms: now_ms, until_ms })
    .onConflictDoUpdate({
      target: self_exclusions.user_id,
      set: {
        kind: sql`CASE WHEN ${later} THEN excluded.kind ELSE ${self_exclusions.kind} END`,
        started_at_ms: sql`CASE WHEN ${self_exclusions.until_ms} <= ${now_ms} THEN excluded.started_at_ms ELSE ${self_exclusions.started_at_ms} END`,
        until_ms: sql`MAX(${self_exclusions.until_ms}, excluded.until_ms)`,
      },
    });
  return (await db.query.self_exclusions.findFirst({ where: eq(self_exclusions.user_id, user_id) }))!;
}

export { EXCLUSION_DAYS };

/** The database's refusals of an order insert (migration triggers), as statuses. */
export type OrderRefusal = { status: "limit_reached"; limit: LimitKind } | { status: "self_excluded" };

export function orderRefusal(err: unknown): OrderRefusal | null {
  const named = refusedBy(err, [["self_excluded", "self_excluded"] as const, ...LIMIT_KINDS.map((k) => [`trading_limit:${k}`, k] as const)]);
  if (named === null) return null;
  return named === "self_excluded" ? { status: "self_excluded" } : { status: "limit_reached", limit: named };
}

/** Is this the deposits trigger refusing a self-excluded user? */
export function depositRefusedByExclusion(err: unknown): boolean {
  return refusedBy(err, [["self_excluded", "self_excluded"] as const]) !== null;
}

/**
 * When a refused limit lets orders through again: the next period for stake and loss limits,
 * the earliest delivery of an open order for the open-orders limit.
 */
export async function resetsAt(db: Db, user_id: number, limit: LimitKind, now_ms: number): Promise<number> {
  const period = periodOf(limit);
  if (period) return periodEnd(period, now_ms);
  const [first] = await db.select({ at: orders.delivery_at_ms }).from(orders).where(and(eq(orders.user_id, user_id), eq(orders.status, "open"))).orderBy(asc(orders.delivery_at_ms)).limit(1);
  return first?.at ?? now_ms;
}

/**
 * Tells the user the first time a limit refuses an order in a period (later refusals in the
 * same period write nothing: the dedupe key names the limit and the period's start). The
 * refusal wrote nothing, so this is its own statement. Answers when the limit resets.
 */
export async function noteLimitReached(db: Db, user_id: number, limit: LimitKind, now_ms: number): Promise<number> {
  const resets_at_ms = await resetsAt(db, user_id, limit, now_ms);
  const period = periodOf(limit);
  const since = period ? periodStart(period, now_ms) : resets_at_ms;
  await notificationInsert(db, { user_id, kind: "limit_reached", params: { limit, resets_at_ms }, dedupe_key: `limit_reached:${limit}:${since}`, now_ms });
  return resets_at_ms;
}
