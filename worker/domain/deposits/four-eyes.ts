import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { app_config } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { MICRO_PER_USDT } from "../money/units";

/** Deposits credited at or above this many micro-USDT need a second, different operator. */
export const FOUR_EYES_KEY = "deposits.four_eyes_micro";
export const FOUR_EYES_DEFAULT_MICRO = 10_000 * MICRO_PER_USDT;
/**
 * The highest the threshold can go. One operator may make four eyes stricter (a lower
 * threshold), never looser: raising it would let that operator alone credit larger deposits.
 */
export const FOUR_EYES_MAX_MICRO = FOUR_EYES_DEFAULT_MICRO;

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
