/** Deposits credited at or above a threshold (worker/domain/money/settings.ts) need a second, different operator (decision 120). */
import { eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { app_config, solo_credit_limits } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { FOUR_EYES_DEFAULT_MICRO, FOUR_EYES_KEY, FOUR_EYES_MAX_MICRO } from "../money/settings";

/** The threshold in force, never above the ceiling whatever is stored. */
export async function getFourEyesThreshold(db: Db): Promise<number> {
  const row = await db.query.app_config.findFirst({ where: eq(app_config.key, FOUR_EYES_KEY) });
  const n = Number(row?.value);
  return row && Number.isSafeInteger(n) && n > 0 ? Math.min(n, FOUR_EYES_MAX_MICRO) : FOUR_EYES_DEFAULT_MICRO;
}

/** An operator's change of the threshold (at most the ceiling), audited with the value before and after. */
export async function setFourEyesThreshold(db: Db, operator_id: number, micro: number, reason: string, now_ms: number): Promise<{ status: "ok" } | { status: "four_eyes_ceiling"; max_micro: number }> {
  if (micro > FOUR_EYES_MAX_MICRO) return { status: "four_eyes_ceiling", max_micro: FOUR_EYES_MAX_MICRO };
  const before = await getFourEyesThreshold(db);
  const value = String(micro);
  await db.batch([
    db.insert(app_config).values({ key: FOUR_EYES_KEY, value, updated_at_ms: now_ms }).onConflictDoUpdate({ target: app_config.key, set: { value, updated_at_ms: now_ms } }),
    auditInsert(db, { operator_id, action: "config.deposit_four_eyes", target: FOUR_EYES_KEY, reason, data: { before_micro: before, after_micro: micro } }, now_ms),
  ]);
  return { status: "ok" };
}

/**
 * Why a deposit's first approval must wait for a second, different operator. One operator alone
 * may credit a deposit only at most at the amount the user claimed, below the threshold, and
 * within two rolling 24 h totals of what was credited by one operator alone: theirs, and the
 * user's. Past any of these a mistake or a dishonest operator could create money alone.
 */
export const WAIT_REASONS = ["above_claim", "four_eyes_threshold", "operator_daily_total", "user_daily_total"] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];

/** The rolling totals, kept in `solo_credit_limits` (set by migrations only). */
export const SOLO_LIMIT_KEYS = { operator_24h_micro: "deposit_operator_24h", user_24h_micro: "deposit_user_24h" } as const;
export type SoloLimits = { operator_24h_micro: number; user_24h_micro: number };
export const SOLO_WINDOW_MS = 24 * 3600_000;

export type SoloCheck = {
  credited_micro: number;
  claimed_micro: number;
  threshold_micro: number;
  limits: SoloLimits;
  /** What was credited by one operator alone within the window: by this operator, and to this user. */
  operator_solo_micro: number;
  user_solo_micro: number;
};

/** The reasons this credit needs a second operator; none means one operator may credit it. */
export function waitReasons(c: SoloCheck): WaitReason[] {
  const out: WaitReason[] = [];
  if (c.credited_micro > c.claimed_micro) out.push("above_claim");
  if (c.credited_micro >= c.threshold_micro) out.push("four_eyes_threshold");
  if (c.operator_solo_micro + c.credited_micro > c.limits.operator_24h_micro) out.push("operator_daily_total");
  if (c.user_solo_micro + c.credited_micro > c.limits.user_24h_micro) out.push("user_daily_total");
  return out;
}

/** The limits in force (a missing row counts as zero: everything then needs two operators). */
export async function getSoloLimits(db: Db): Promise<SoloLimits> {
  const rows = await db.select().from(solo_credit_limits);
  const of = (key: string) => rows.find((r) => r.key === key)?.micro ?? 0;
  return { operator_24h_micro: of(SOLO_LIMIT_KEYS.operator_24h_micro), user_24h_micro: of(SOLO_LIMIT_KEYS.user_24h_micro) };
}

/** What one operator alone credited within the window ending at `now_ms`: by `operator_id`, and to `user_id`. */
export async function soloTotals(db: Db, operator_id: number, user_id: number, now_ms: number): Promise<{ operator_solo_micro: number; user_solo_micro: number }> {
  const since = now_ms - SOLO_WINDOW_MS;
  const solo = (who: SQL) => sql<number>`COALESCE((SELECT SUM(credited_micro) FROM deposits WHERE ${who} AND status = 'approved' AND confirmed_by IS NULL AND decided_at_ms > ${since}), 0)`;
  const [row] = await db.all<{ operator_solo_micro: number; user_solo_micro: number }>(sql`SELECT ${solo(sql`approved_by = ${operator_id}`)} AS operator_solo_micro, ${solo(sql`user_id = ${user_id}`)} AS user_solo_micro`);
  return row;
}
