import { serverNow } from "./clock";
import { getDb } from "./db/client";
import { accrueDue } from "./domain/earn/accrual";
import type { Env } from "./env";

/**
 * The earn sweep (cron, every minute): pays every pool reward and miner output that is due.
 * Each run does a bounded amount of work; a backlog (after downtime) drains over a few runs.
 */
export async function sweepEarn(env: Env) {
  const db = getDb(env.DB);
  return accrueDue(db, await serverNow(env, db));
}
