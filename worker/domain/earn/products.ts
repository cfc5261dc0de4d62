import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { miner_machines, miner_plans, pool_orders, pool_products } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { openState } from "../audit/second-operator";

/**
 * What the earn products offer: liquidity-pool products and cloud-miner plans. Their terms are
 * copied onto each order or machine at purchase, so a later edit never changes what a user
 * bought; still, terms cannot be edited while anything bought under them is running (an
 * operator closes the product and makes a new one instead).
 */
export type PoolProduct = typeof pool_products.$inferSelect;
export type MinerPlan = typeof miner_plans.$inferSelect;

export type PoolProductInput = { name: string; days: number; daily_rate_bp: number; min_amount_micro: number; max_amount_micro: number; penalty_rate_bp: number; enabled: boolean; sort: number };
export type MinerPlanInput = { name: string; price_micro: number; days: number; daily_output_micro: number; stock: number; enabled: boolean; sort: number };

export async function listPoolProducts(db: Db, opts: { only_enabled: boolean }): Promise<PoolProduct[]> {
  return db.select().from(pool_products).where(opts.only_enabled ? eq(pool_products.enabled, 1) : undefined).orderBy(asc(pool_products.sort), asc(pool_products.id));
}

export async function getPoolProduct(db: Db, id: number): Promise<PoolProduct | null> {
  return (await db.query.pool_products.findFirst({ where: eq(pool_products.id, id) })) ?? null;
}

export async function listMinerPlans(db: Db, opts: { only_enabled: boolean }): Promise<MinerPlan[]> {
  return db.select().from(miner_plans).where(opts.only_enabled ? eq(miner_plans.enabled, 1) : undefined).orderBy(asc(miner_plans.sort), asc(miner_plans.id));
}

export async function getMinerPlan(db: Db, id: number): Promise<MinerPlan | null> {
  return (await db.query.miner_plans.findFirst({ where: eq(miner_plans.id, id) })) ?? null;
}

export type SaveResult<T> = { status: "ok"; row: T } | { status: "not_found" | "terms_locked" | "four_eyes_same_operator" };

/**
 * Four eyes on what earn pays: a product's rewards are paid by the platform, so one operator
 * could otherwise set generous terms and buy in through an account they control. Terms an
 * operator sets leave it closed until someone else opens it (worker/domain/audit/second-operator.ts).
 */

/**
 * Creates (id null) or edits a pool product, audited when an operator does it (operator null:
 * the demo seed). Terms (days, rates, limits) are locked while orders under it are pending;
 * the name, order and open/closed switch can always change.
 */
export async function savePoolProduct(db: Db, operator_id: number | null, id: number | null, input: PoolProductInput, reason: string, now_ms: number): Promise<SaveResult<PoolProduct>> {
  if (id === null) {
    const [row] = await db.insert(pool_products).values({ ...input, ...openState(operator_id, null, input.enabled, true)!, created_at_ms: now_ms }).returning();
    if (operator_id !== null) await db.batch([auditInsert(db, { operator_id, action: "pool_product.create", target: `pool_product:${row.id}`, reason, data: input }, now_ms)]);
    return { status: "ok", row };
  }
  const before = await getPoolProduct(db, id);
  if (!before) return { status: "not_found" };
  const termsChanged = before.days !== input.days || before.daily_rate_bp !== input.daily_rate_bp || before.min_amount_micro !== input.min_amount_micro || before.max_amount_micro !== input.max_amount_micro || before.penalty_rate_bp !== input.penalty_rate_bp;
  if (termsChanged && (await countRunning(db, "pool", id)) > 0) return { status: "terms_locked" };
  const state = openState(operator_id, before, input.enabled, termsChanged);
  if (!state) return { status: "four_eyes_same_operator" };
  const values = { ...input, ...state };
  const statements = [db.update(pool_products).set(values).where(eq(pool_products.id, id)).returning()] as const;
  const audit = operator_id === null ? [] : [auditInsert(db, { operator_id, action: "pool_product.update", target: `pool_product:${id}`, reason, data: { before, after: input } }, now_ms)];
  const [rows] = await db.batch([...statements, ...audit] as unknown as [typeof statements[0]]);
  return { status: "ok", row: rows[0] };
}

/** The same for miner plans: price, cycle and output are locked while machines of the plan run. */
export async function saveMinerPlan(db: Db, operator_id: number | null, id: number | null, input: MinerPlanInput, reason: string, now_ms: number): Promise<SaveResult<MinerPlan>> {
  if (id === null) {
    const [row] = await db.insert(miner_plans).values({ ...input, ...openState(operator_id, null, input.enabled, true)!, created_at_ms: now_ms }).returning();
    if (operator_id !== null) await db.batch([auditInsert(db, { operator_id, action: "miner_plan.create", target: `miner_plan:${row.id}`, reason, data: input }, now_ms)]);
    return { status: "ok", row };
  }
  const before = await getMinerPlan(db, id);
  if (!before) return { status: "not_found" };
  const termsChanged = before.price_micro !== input.price_micro || before.days !== input.days || before.daily_output_micro !== input.daily_output_micro;
  if (termsChanged && (await countRunning(db, "miner", id)) > 0) return { status: "terms_locked" };
  const state = openState(operator_id, before, input.enabled, termsChanged);
  if (!state) return { status: "four_eyes_same_operator" };
  const values = { ...input, ...state };
  const statements = [db.update(miner_plans).set(values).where(eq(miner_plans.id, id)).returning()] as const;
  const audit = operator_id === null ? [] : [auditInsert(db, { operator_id, action: "miner_plan.update", target: `miner_plan:${id}`, reason, data: { before, after: input } }, now_ms)];
  const [rows] = await db.batch([...statements, ...audit] as unknown as [typeof statements[0]]);
  return { status: "ok", row: rows[0] };
}

async function countRunning(db: Db, kind: "pool" | "miner", id: number): Promise<number> {
  const [{ n }] =
    kind === "pool"
      ? await db.select({ n: sql<number>`count(*)` }).from(pool_orders).where(and(eq(pool_orders.product_id, id), eq(pool_orders.status, "pending")))
      : await db.select({ n: sql<number>`count(*)` }).from(miner_machines).where(and(eq(miner_machines.plan_id, id), eq(miner_machines.status, "running")));
  return n;
}
