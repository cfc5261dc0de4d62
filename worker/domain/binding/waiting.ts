import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { app_config } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { BINDING_WAIT_DEFAULT_HOURS, BINDING_WAIT_KEY, BINDING_WAIT_MAX_HOURS, BINDING_WAIT_MIN_HOURS } from "../money/settings";

/**
 * The allow-list's waiting period: a newly bound address or card receives withdrawals only
 * this long after it was bound, so a thief with a session and the password still cannot send
 * money to a destination of their own at once. Each binding keeps the opening time it got when
 * it was bound (a later change of the setting moves no existing binding), and there is no
 * per-user value, so nothing can shorten it for one account. Its default and bounds:
 * worker/domain/money/settings.ts.
 */

export async function getBindingWaitHours(db: Db): Promise<number> {
  const row = await db.query.app_config.findFirst({ where: eq(app_config.key, BINDING_WAIT_KEY) });
  const n = Number(row?.value);
  return row && Number.isSafeInteger(n) ? Math.min(Math.max(n, BINDING_WAIT_MIN_HOURS), BINDING_WAIT_MAX_HOURS) : BINDING_WAIT_DEFAULT_HOURS;
}

/** When a destination bound at `now_ms` opens. */
export async function bindingOpensAt(db: Db, now_ms: number): Promise<number> {
  return now_ms + (await getBindingWaitHours(db)) * 3_600_000;
}

export async function setBindingWaitHours(db: Db, operator_id: number, hours: number, reason: string, now_ms: number): Promise<{ status: "ok" } | { status: "out_of_range" }> {
  if (!Number.isInteger(hours) || hours < BINDING_WAIT_MIN_HOURS || hours > BINDING_WAIT_MAX_HOURS) return { status: "out_of_range" };
  const before = await getBindingWaitHours(db);
  const value = String(hours);
  await db.batch([
    db.insert(app_config).values({ key: BINDING_WAIT_KEY, value, updated_at_ms: now_ms }).onConflictDoUpdate({ target: app_config.key, set: { value, updated_at_ms: now_ms } }),
    auditInsert(db, { operator_id, action: "config.binding_wait", target: BINDING_WAIT_KEY, reason, data: { before_hours: before, after_hours: hours } }, now_ms),
  ]);
  return { status: "ok" };
}
