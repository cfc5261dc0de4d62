/**
 * Promotion bonuses at or above a threshold (worker/domain/money/settings.ts) need a second,
 * different operator, the same pattern as deposits (worker/domain/deposits/four-eyes.ts).
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { app_config } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { PROMOTION_FOUR_EYES_DEFAULT_MICRO, PROMOTION_FOUR_EYES_KEY, PROMOTION_FOUR_EYES_MAX_MICRO } from "../money/settings";

/** The threshold in force, never above the ceiling whatever is stored. */
export async function getPromotionFourEyes(db: Db): Promise<number> {
  const row = await db.query.app_config.findFirst({ where: eq(app_config.key, PROMOTION_FOUR_EYES_KEY) });
  const n = Number(row?.value);
  return row && Number.isSafeInteger(n) && n > 0 ? Math.min(n, PROMOTION_FOUR_EYES_MAX_MICRO) : PROMOTION_FOUR_EYES_DEFAULT_MICRO;
}

/** An operator's change (at most the ceiling), audited with the value before and after. */
export async function setPromotionFourEyes(db: Db, operator_id: number, micro: number, reason: string, now_ms: number): Promise<{ status: "ok" } | { status: "four_eyes_ceiling"; max_micro: number }> {
  if (micro > PROMOTION_FOUR_EYES_MAX_MICRO) return { status: "four_eyes_ceiling", max_micro: PROMOTION_FOUR_EYES_MAX_MICRO };
  const before = await getPromotionFourEyes(db);
  const value = String(micro);
  await db.batch([
    db.insert(app_config).values({ key: PROMOTION_FOUR_EYES_KEY, value, updated_at_ms: now_ms }).onConflictDoUpdate({ target: app_config.key, set: { value, updated_at_ms: now_ms } }),
    auditInsert(db, { operator_id, action: "config.promotion_four_eyes", target: PROMOTION_FOUR_EYES_KEY, reason, data: { before_micro: before, after_micro: micro } }, now_ms),
  ]);
  return { status: "ok" };
}
