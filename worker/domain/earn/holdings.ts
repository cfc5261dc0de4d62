import { and, desc, eq, gte, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { ledger_accounts, ledger_transfers, miner_machines, miner_outputs, miner_plans, pool_orders, pool_products } from "../../db/schema";
import { rewardsDueWithin24h } from "./due";

/**
 * Read-only views of earn for the console: one user's pool orders and machines, and the
 * overview's figures. Money figures come from the rows the accrual keeps (days_paid,
 * reward_paid_micro, miner_outputs) and from the ledger itself, never recomputed here.
 */
export type PoolHolding = typeof pool_orders.$inferSelect & { product_name: string | null };
export type MinerHolding = typeof miner_machines.$inferSelect & { plan_name: string | null; output_micro: number };

/** At most this many of each kind per user page: the newest first. */
const HOLDINGS_LIMIT = 100;

export async function userHoldings(db: Db, user_id: number): Promise<{ pool: PoolHolding[]; miner: MinerHolding[] }> {
  const [pool, miner] = await db.batch([
    db
      .select({ order: pool_orders, product_name: pool_products.name })
      .from(pool_orders)
      .leftJoin(pool_products, eq(pool_products.id, pool_orders.product_id))
      .where(eq(pool_orders.user_id, user_id))
      .orderBy(desc(pool_orders.id))
      .limit(HOLDINGS_LIMIT),
    db
      .select({
        machine: miner_machines,
        plan_name: miner_plans.name,
        output_micro: sql<number>`(SELECT coalesce(sum(${miner_outputs.output_micro}), 0) FROM ${miner_outputs} WHERE ${miner_outputs.machine_id} = ${miner_machines.id})`,
      })
      .from(miner_machines)
      .leftJoin(miner_plans, eq(miner_plans.id, miner_machines.plan_id))
      .where(eq(miner_machines.user_id, user_id))
      .orderBy(desc(miner_machines.id))
      .limit(HOLDINGS_LIMIT),
  ]);
  return {
    pool: pool.map((r) => ({ ...r.order, product_name: r.product_name })),
    miner: miner.map((r) => ({ ...r.machine, plan_name: r.plan_name, output_micro: Number(r.output_micro) })),
  };
}

export type EarnFigures = { locked_pool_micro: number; paid_today_micro: number; due_24h_micro: number };

/** The ledger codes that pay users for earn: a pool day's reward and a machine's day output. */
const REWARD_CODES = ["pool_reward", "miner_output"];

/** UTC midnight of the day `now_ms` falls in. */
export function utcMidnight(now_ms: number): number {
  const d = new Date(now_ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}

export async function earnFigures(db: Db, now_ms: number): Promise<EarnFigures> {
  const [[locked], [paid], pool, machines] = await db.batch([
    db
      .select({ n: sql<number>`coalesce(sum(${ledger_accounts.balance_micro}), 0)` })
      .from(ledger_accounts)
      .where(and(eq(ledger_accounts.owner_kind, "user"), eq(ledger_accounts.code, "locked_pool"))),
    db
      .select({ n: sql<number>`coalesce(sum(${ledger_transfers.amount_micro}), 0)` })
      .from(ledger_transfers)
      .where(and(inArray(ledger_transfers.code, REWARD_CODES), gte(ledger_transfers.created_at_ms, utcMidnight(now_ms)))),
    db
      .select({ amount_micro: pool_orders.amount_micro, daily_rate_bp: pool_orders.daily_rate_bp, days: pool_orders.days, days_paid: pool_orders.days_paid, started_at_ms: pool_orders.started_at_ms })
      .from(pool_orders)
      .where(eq(pool_orders.status, "pending")),
    db
      .select({ daily_output_micro: miner_machines.daily_output_micro, days: miner_machines.days, days_paid: miner_machines.days_paid, started_at_ms: miner_machines.started_at_ms })
      .from(miner_machines)
      .where(eq(miner_machines.status, "running")),
  ]);
  return { locked_pool_micro: Number(locked.n), paid_today_micro: Number(paid.n), due_24h_micro: rewardsDueWithin24h(now_ms, pool, machines).total_micro };
}
