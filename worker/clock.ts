import { isLocalRun } from "./app-env";
import { eq, sql } from "drizzle-orm";
import type { Db } from "./db/client";
import { app_config } from "./db/schema";

/**
 * The server's clock for day-based earnings (pool rewards, miner outputs): completed days are
 * counted from the purchase time to this clock, never to a client's. A test deployment
 * (`TEST_CLOCK = "1"`, never in production) may move it forward with `/api/test/clock`, so a
 * journey can see a day pass in seconds; everywhere else it is `Date.now()`.
 */
export const TEST_CLOCK_KEY = "test.clock_offset_ms";

type ClockEnv = { APP_ENV: string; TEST_CLOCK?: string };

export function testClockEnabled(env: ClockEnv): boolean {
  return env.TEST_CLOCK === "1" && isLocalRun(env);
}

/** Now, in ms: `Date.now()`, plus the test offset where a test clock is enabled. */
export async function serverNow(env: ClockEnv, db: Db): Promise<number> {
  if (!testClockEnabled(env)) return Date.now();
  const row = await db.query.app_config.findFirst({ where: eq(app_config.key, TEST_CLOCK_KEY) });
  const offset_ms = row ? Number(row.value) : 0;
  return Date.now() + (Number.isSafeInteger(offset_ms) ? offset_ms : 0);
}

/** Moves the test clock forward by `advance_ms` (callers check testClockEnabled first). */
export async function advanceTestClock(db: Db, advance_ms: number): Promise<number> {
  const [row] = await db
    .insert(app_config)
    .values({ key: TEST_CLOCK_KEY, value: String(advance_ms), updated_at_ms: Date.now() })
    .onConflictDoUpdate({ target: app_config.key, set: { value: sql`CAST(CAST(${app_config.value} AS INTEGER) + ${advance_ms} AS TEXT)`, updated_at_ms: Date.now() } })
    .returning();
  return Number(row.value);
}
