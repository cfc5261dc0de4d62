/**
 * Daily earnings: for every pending pool order and running machine, each completed day not
 * yet paid is credited, one day per guarded batch (see payPoolDay / payMinerDay), so a
 * concurrent or repeated run can never pay a day twice and a run after downtime catches up
 * several days at once. Work per run is bounded (D1 allows 1,000 queries per invocation):
 * what is left over is paid by the next run.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { miner_machines, pool_orders } from "../../db/schema";
import { completedDays, DAY_MS } from "./pool-math";
import { payMinerDay, type MinerMachine } from "./miner";
import { payPoolDay, type PoolOrder } from "./pool";

/** At most this many day payments per run: each is one batch of 4-7 statements (D1 counts each), so a run stays under ~700 of its 1,000 queries. */
export const MAX_DAY_STEPS = 100;
const ROWS_PER_SCAN = 50;

export type AccrualReport = { paid: number; skipped: number; more: boolean };

type Due = { kind: "pool"; row: PoolOrder } | { kind: "miner"; row: MinerMachine };

async function dueRows(db: Db, now_ms: number, user_id: number | null): Promise<Due[]> {
  // Only rows whose next unpaid day is complete, so rows already paid up never crowd the scan.
  const poolWhere = and(eq(pool_orders.status, "pending"), sql`${pool_orders.started_at_ms} + (${pool_orders.days_paid} + 1) * ${DAY_MS} <= ${now_ms}`, user_id === null ? undefined : eq(pool_orders.user_id, user_id));
  const minerWhere = and(eq(miner_machines.status, "running"), sql`${miner_machines.started_at_ms} + (${miner_machines.days_paid} + 1) * ${DAY_MS} <= ${now_ms}`, user_id === null ? undefined : eq(miner_machines.user_id, user_id));
  const [pools, machines] = await Promise.all([
    db.select().from(pool_orders).where(poolWhere).orderBy(asc(pool_orders.started_at_ms)).limit(ROWS_PER_SCAN),
    db.select().from(miner_machines).where(minerWhere).orderBy(asc(miner_machines.started_at_ms)).limit(ROWS_PER_SCAN),
  ]);
  return [...pools.map((row) => ({ kind: "pool" as const, row })), ...machines.map((row) => ({ kind: "miner" as const, row }))];
}

/** Pays the completed, unpaid days of one row, oldest first, within the remaining budget. */
async function payRow(db: Db, due: Due, now_ms: number, budget: number): Promise<{ paid: number; skipped: number; left: boolean }> {
  const { row } = due;
  const done = completedDays(row.started_at_ms, row.days, now_ms);
  let paid = 0;
  let skipped = 0;
  for (let day = row.days_paid + 1; day <= done; day++) {
    if (paid + skipped >= budget) return { paid, skipped, left: true };
    const r = due.kind === "pool" ? await payPoolDay(db, due.row, day, now_ms) : await payMinerDay(db, due.row, day, now_ms);
    if (r.status === "ok") paid++;
    else {
      // Another run paid it (or the order was redeemed): that run carries on from here.
      skipped++;
      break;
    }
  }
  return { paid, skipped, left: false };
}

/** Pays what is due at `now_ms`: everyone's (the cron), or one user's (when they open a page). */
export async function accrueDue(db: Db, now_ms: number, opts: { user_id?: number; max_steps?: number } = {}): Promise<AccrualReport> {
  const max = opts.max_steps ?? MAX_DAY_STEPS;
  const rows = await dueRows(db, now_ms, opts.user_id ?? null);
  let paid = 0;
  let skipped = 0;
  for (const due of rows) {
    const r = await payRow(db, due, now_ms, max - paid - skipped);
    paid += r.paid;
    skipped += r.skipped;
    if (r.left || paid + skipped >= max) return { paid, skipped, more: true };
  }
  return { paid, skipped, more: rows.length === ROWS_PER_SCAN };
}
