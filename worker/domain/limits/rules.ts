/**
 * Responsible-trading limits as plain rules: the periods they count over, which value is in
 * force at a time, and what a change does. The order trigger (migration, hand-written part)
 * does the same arithmetic in SQL inside the order's own batch; these functions answer the
 * pages and the refusal's words, and the unit tests hold the two descriptions together.
 */
import { LIMIT_KINDS } from "../../db/schema/limits";

export { LIMIT_KINDS };
export type LimitKind = (typeof LIMIT_KINDS)[number];
export type Period = "day" | "week" | "month";

/** A loosening (raise or removal) waits this long; a tightening counts at once. */
export const LOOSEN_DELAY_MS = 24 * 3_600_000;
const DAY_MS = 86_400_000;

export function periodOf(kind: LimitKind): Period | null {
  if (kind.startsWith("daily_")) return "day";
  if (kind.startsWith("weekly_")) return "week";
  if (kind.startsWith("monthly_")) return "month";
  return null;
}

/** Start of the UTC day, ISO week (Monday 00:00 UTC) or calendar month holding `t`. */
export function periodStart(period: Period, t: number): number {
  const day = t - (((t % DAY_MS) + DAY_MS) % DAY_MS);
  if (period === "day") return day;
  // 1970-01-01 was a Thursday: three days after a Monday.
  if (period === "week") return day - ((((Math.floor(day / DAY_MS) + 3) % 7) + 7) % 7) * DAY_MS;
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The first moment of the next period: when a stake or loss limit resets. */
export function periodEnd(period: Period, t: number): number {
  if (period === "day") return periodStart("day", t) + DAY_MS;
  if (period === "week") return periodStart("week", t) + 7 * DAY_MS;
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** A user's row for one limit (null values: no limit; pending_at_ms null: nothing pending). */
export type LimitRow = { value: number | null; pending_value: number | null; pending_at_ms: number | null };
export const NO_LIMIT: LimitRow = { value: null, pending_value: null, pending_at_ms: null };

/** The value in force at `t`: a waiting change counts from its time on. */
export function inForce(row: LimitRow, t: number): number | null {
  return row.pending_at_ms !== null && row.pending_at_ms <= t ? row.pending_value : row.value;
}

/** Is `next` looser than `current`? (null is no limit, the loosest of all.) */
export function loosens(current: number | null, next: number | null): boolean {
  if (next === null) return current !== null;
  return current !== null && next > current;
}

/**
 * The row after the user asks for `next` at `now`: a tightening (or an equal value) replaces
 * the value in force and drops anything pending; a loosening waits LOOSEN_DELAY_MS from this
 * request (a later request restarts the wait), and until then the current value stays.
 */
export function applyChange(row: LimitRow, next: number | null, now: number): LimitRow {
  const current = inForce(row, now);
  if (!loosens(current, next)) return { value: next, pending_value: null, pending_at_ms: null };
  return { value: current, pending_value: next, pending_at_ms: now + LOOSEN_DELAY_MS };
}

/** A change still waiting at `t`, if any. */
export function pendingAt(row: LimitRow, t: number): { value: number | null; effective_at_ms: number } | null {
  return row.pending_at_ms !== null && row.pending_at_ms > t ? { value: row.pending_value, effective_at_ms: row.pending_at_ms } : null;
}

/** What the order trigger counts, for one user at the time of a new order. */
export type Usage = { stake_in_period: number; open_stake: number; loss_in_period: number; open_orders: number };

/** Would an order of `stake` pass `kind` at `limit`? (Same sums as the trigger.) */
export function fits(kind: LimitKind, limit: number | null, usage: Usage, stake: number): boolean {
  if (limit === null) return true;
  if (kind === "max_open_orders") return usage.open_orders + 1 <= limit;
  if (kind.endsWith("_stake")) return usage.stake_in_period + stake <= limit;
  return usage.loss_in_period + usage.open_stake + stake <= limit;
}

/** Cool-off and self-exclusion lengths in days, inclusive. */
export const EXCLUSION_DAYS = { cool_off: { min: 1, max: 42 }, exclusion: { min: 183, max: 1826 } } as const;
export type ExclusionKind = keyof typeof EXCLUSION_DAYS;

export function exclusionDaysValid(kind: ExclusionKind, days: number): boolean {
  const r = EXCLUSION_DAYS[kind];
  return Number.isInteger(days) && days >= r.min && days <= r.max;
}
