import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { login_throttle } from "../../db/schema";

/**
 * Per-account login throttling: after MAX_FAILURES wrong passwords inside WINDOW_MS the
 * account key is locked for LOCK_MS, whether or not the account exists (so the lock does not
 * reveal which accounts are real). A correct password clears the counter.
 */
export const THROTTLE = { max_failures: 5, window_ms: 15 * 60_000, lock_ms: 15 * 60_000 } as const;

export type ThrottleState = { status: "open" } | { status: "locked"; retry_after_ms: number };

export async function throttleState(db: Db, key: string, now_ms: number): Promise<ThrottleState> {
  const row = await db.query.login_throttle.findFirst({ where: eq(login_throttle.key, key) });
  if (row && row.locked_until_ms > now_ms) return { status: "locked", retry_after_ms: row.locked_until_ms - now_ms };
  return { status: "open" };
}

/** One atomic upsert: concurrent failures are all counted, none lost to a read-then-write. */
export function recordLoginFailure(db: Db, key: string, now_ms: number) {
  const { max_failures, window_ms, lock_ms } = THROTTLE;
  const fresh = sql`${login_throttle.window_started_at_ms} <= ${now_ms - window_ms}`;
  const next = sql`(CASE WHEN ${fresh} THEN 1 ELSE ${login_throttle.failures} + 1 END)`;
  return db
    .insert(login_throttle)
    .values({ key, failures: 1, window_started_at_ms: now_ms, locked_until_ms: 0 })
    .onConflictDoUpdate({
      target: login_throttle.key,
      set: {
        // SQLite evaluates every SET expression against the old row, so `next` is consistent.
        failures: next,
        window_started_at_ms: sql`(CASE WHEN ${fresh} THEN ${now_ms} ELSE ${login_throttle.window_started_at_ms} END)`,
        locked_until_ms: sql`(CASE WHEN ${next} >= ${max_failures} THEN ${now_ms + lock_ms} ELSE ${login_throttle.locked_until_ms} END)`,
      },
    });
}

export function clearLoginFailures(db: Db, key: string) {
  return db.delete(login_throttle).where(eq(login_throttle.key, key));
}
