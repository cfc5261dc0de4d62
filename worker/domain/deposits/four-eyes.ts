import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { app_config } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { MICRO_PER_USDT } from "../money/units";

/** Deposits credited at or above this many micro-USDT need a second, different operator. */
export const FOUR_EYES_KEY = "deposits.four_eyes_micro";
export const FOUR_EYES_DEFAULT_MICRO = 10_000 * MICRO_PER_USDT;

export async function getFourEyesThreshold(db: Db): Promise<number> {
  const row = await db.query.app_config.findFirst({ where: eq(app_config.key, FOUR_EYES_KEY) });
  const n = Number(row?.value);
  return row && Number.isSafeInteger(n) && n > 0 ? n : FOUR_EYES_DEFAULT_MICRO;
}

/** An operator's change of the threshold, audited with the value before and after. */
export async function setFourEyesThreshold(db: Db, operator_id: number, micro: number, reason: string, now_ms: number) {
  const before = await getFourEyesThreshold(db);
  const value = String(micro);
  await db.batch([
    db.insert(app_config).values({ key: FOUR_EYES_KEY, value, updated_at_ms: now_ms }).onConflictDoUpdate({ target: app_config.key, set: { value, updated_at_ms: now_ms } }),
    auditInsert(db, { operator_id, action: "config.deposit_four_eyes", target: FOUR_EYES_KEY, reason, data: { before_micro: before, after_micro: micro } }, now_ms),
  ]);
}
