import { and, eq, gte, lte, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { login_throttle } from "../../db/schema";

/**
 * Per-account password throttling: at most MAX_FAILURES wrong passwords inside WINDOW_MS, then
 * the account key is locked for LOCK_MS, whether or not the account exists (so the lock does
 * not reveal which accounts are real). Sign-in and the password confirmations of money actions
 * share the key, so a stolen session cannot guess the password faster than a stranger.
 *
 * An attempt is taken BEFORE the password is hashed (`takeAttempt`), in one statement that
 * refuses once the window's attempts are used up: parallel guesses cannot all run their hash
 * before the lock engages. A wrong password keeps its attempt (`failedAttempt`); a right one
 * clears the count (`succeededAttempt`).
 */
export const THROTTLE = { max_failures: 5, window_ms: 15 * 60_000, lock_ms: 15 * 60_000 } as const;

/** Sign-in, password confirmations and second-factor codes of one account share this key. */
export const userThrottleKey = (account: string) => `user:${account}`;
/** The same for an operator: sign-in, enrolment and step-up codes. */
export const operatorThrottleKey = (account: string) => `operator:${account}`;

export type Attempt = { status: "taken" } | { status: "locked"; retry_after_ms: number };

/** How many attempts a key may take inside one window. The sign-in throttle's by default. */
export type Budget = { max: number; window_ms: number };
const SIGN_IN_BUDGET: Budget = { max: THROTTLE.max_failures, window_ms: THROTTLE.window_ms };

/**
 * Takes one attempt of `key`'s window, or refuses once its `max` are taken (or the key is
 * locked). Other counted things (the guest limits of customer service) use it with their own
 * budget and never lock or clear: their window simply fills and starts again.
 */
export async function takeAttempt(db: Db, key: string, now_ms: number, budget: Budget = SIGN_IN_BUDGET): Promise<Attempt> {
  const { max, window_ms } = budget;
  const t = login_throttle;
  const fresh = sql`${t.window_started_at_ms} <= ${now_ms - window_ms}`;
  const taken = await db
    .insert(t)
    .values({ key, failures: 1, window_started_at_ms: now_ms, locked_until_ms: 0 })
    .onConflictDoUpdate({
      target: t.key,
      // SQLite evaluates every SET expression and the WHERE against the old row.
      set: {
        failures: sql`(CASE WHEN ${fresh} THEN 1 ELSE ${t.failures} + 1 END)`,
        window_started_at_ms: sql`(CASE WHEN ${fresh} THEN ${now_ms} ELSE ${t.window_started_at_ms} END)`,
      },
      // No row comes back when the key is locked or the window's attempts are all taken.
      setWhere: sql`${t.locked_until_ms} <= ${now_ms} AND (${fresh} OR ${t.failures} < ${max})`,
    })
    .returning({ failures: t.failures });
  if (taken.length > 0) return { status: "taken" };
  return { status: "locked", retry_after_ms: await retryAfter(db, key, now_ms, window_ms) };
}

/** The attempt stays counted; the one that fills the window locks the key for LOCK_MS. */
export function failedAttempt(db: Db, key: string, now_ms: number) {
  const t = login_throttle;
  return db
    .update(t)
    .set({ locked_until_ms: now_ms + THROTTLE.lock_ms })
    .where(and(eq(t.key, key), gte(t.failures, THROTTLE.max_failures), lte(t.locked_until_ms, now_ms)));
}

/**
 * A right password clears the count: the owner has shown they know it. (Attempts still in
 * flight lose their place too; that only happens while the right password is being used.)
 */
export function succeededAttempt(db: Db, key: string) {
  return db.delete(login_throttle).where(eq(login_throttle.key, key));
}

async function retryAfter(db: Db, key: string, now_ms: number, window_ms: number): Promise<number> {
  const row = await db.query.login_throttle.findFirst({ where: eq(login_throttle.key, key) });
  if (!row) return 1_000; // cleared meanwhile by a right password: worth trying again at once
  return Math.max(1_000, row.locked_until_ms - now_ms, row.window_started_at_ms + window_ms - now_ms);
}
