/**
 * The cloud miner's money: buying a machine (price → platform:miner, one unit of stock) and
 * each completed day's output (platform:rewards → available, with its results row).
 */
import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { miner_machines, miner_outputs, miner_plans } from "../../db/schema";
import { platformAccount, userAccount } from "../ledger/accounts";
import type { MoneyFailure, Transfer } from "../ledger/transfer";
import { requestHash } from "../money/request-hash";
import { earnGuard } from "./batch";
import { postTransfers } from "../ledger/transfer";
import { minerEndsAt } from "./miner-math";
import { getMinerPlan } from "./products";

export type MinerMachine = typeof miner_machines.$inferSelect;

export type BuyMiner = { user_id: number; plan_id: number; request_key: string };
export type BuyMinerResult = { status: "ok"; machine: MinerMachine; replayed: boolean } | { status: "product_closed" | "out_of_stock" | "idempotency_conflict" | MoneyFailure };

const findByRequest = (db: Db, user_id: number, request_key: string) => db.query.miner_machines.findFirst({ where: and(eq(miner_machines.user_id, user_id), eq(miner_machines.request_key, request_key)) });

async function replay(db: Db, input: BuyMiner, hash: string): Promise<BuyMinerResult | null> {
  const existing = await findByRequest(db, input.user_id, input.request_key);
  if (!existing) return null;
  return existing.request_hash === hash ? { status: "ok", machine: existing, replayed: true } : { status: "idempotency_conflict" };
}

/**
 * Buys one machine. The stock is decremented in the same batch, FIRST, with a guard: the
 * CHECK (stock >= 0) refuses the last unit twice, so concurrent buyers of one unit get
 * exactly one machine and the other batches roll back whole (no money moves for them).
 */
export async function buyMiner(db: Db, input: BuyMiner, now_ms: number): Promise<BuyMinerResult> {
  const hash = requestHash({ kind: "miner", plan_id: input.plan_id });
  const earlier = await replay(db, input, hash);
  if (earlier) return earlier;
  const plan = await getMinerPlan(db, input.plan_id);
  if (!plan || plan.enabled !== 1) return { status: "product_closed" };
  if (plan.stock <= 0) return { status: "out_of_stock" };
  const machine_id = sql`(SELECT id FROM miner_machines WHERE user_id = ${input.user_id} AND request_key = ${input.request_key})`;
  const pay: Transfer = {
    key: `miner:${input.user_id}:${input.request_key}:purchase`,
    debit: userAccount(input.user_id, "available"),
    credit: platformAccount("miner"),
    amount_micro: plan.price_micro,
    code: "miner_purchase",
    ref_type: "miner_machine",
    ref_id: sql`CAST(${machine_id} AS TEXT)` as unknown as string,
  };
  const items = [
    // By id only: a machine is never sold without taking its unit of stock (a plan closed a
    // moment ago may still sell this one; the CHECK still stops it at zero).
    db.update(miner_plans).set({ stock: sql`${miner_plans.stock} - 1` }).where(eq(miner_plans.id, plan.id)),
    db.insert(miner_machines).values({
      user_id: input.user_id,
      plan_id: plan.id,
      price_micro: plan.price_micro,
      days: plan.days,
      daily_output_micro: plan.daily_output_micro,
      started_at_ms: now_ms,
      ends_at_ms: minerEndsAt(now_ms, plan.days),
      status: "running",
      request_key: input.request_key,
      request_hash: hash,
    }),
  ];
  let r;
  try {
    r = await postTransfers(db, [pay], items, now_ms);
  } catch (err) {
    if (String((err as Error)?.message ?? err).includes("miner_plans_valid") || String((err as { cause?: Error })?.cause?.message).includes("miner_plans_valid")) return { status: "out_of_stock" };
    throw err;
  }
  if (r.status === "duplicate_request" || r.status === "duplicate") return (await replay(db, input, hash)) ?? r;
  if (r.status !== "ok") return r;
  return { status: "ok", machine: (await findByRequest(db, input.user_id, input.request_key))!, replayed: false };
}

/**
 * Credits day `day` of a running machine: guard (still running, day − 1 paid), the results
 * row (primary key machine and day), the counter, and the transfer keyed by machine and day.
 * The last day ends the machine.
 */
export async function payMinerDay(db: Db, m: MinerMachine, day: number, now_ms: number) {
  const last = day === m.days;
  const output: Transfer = { key: `miner:${m.id}:day:${day}`, debit: platformAccount("rewards"), credit: userAccount(m.user_id, "available"), amount_micro: m.daily_output_micro, code: "miner_output", ref_type: "miner_machine", ref_id: String(m.id) };
  const items = [
    earnGuard("miner_machine", m.id, sql`status = 'running' AND days_paid = ${day - 1}`, `day:${day - 1}`, `day:${day}`, { kind: "system", id: null }, now_ms),
    db.insert(miner_outputs).values({ machine_id: m.id, user_id: m.user_id, day, output_micro: m.daily_output_micro, credited_at_ms: now_ms }),
    db
      .update(miner_machines)
      .set({ days_paid: day, ...(last ? { status: "ended" as const } : {}) })
      .where(and(eq(miner_machines.id, m.id), eq(miner_machines.days_paid, day - 1))),
  ];
  return postTransfers(db, [output], items, now_ms);
}

export async function listMachines(db: Db, user_id: number) {
  return db.select().from(miner_machines).where(eq(miner_machines.user_id, user_id)).orderBy(desc(miner_machines.id)).limit(200);
}

/** The results list: each day's output, newest first, with the total so far. */
export async function listOutputs(db: Db, user_id: number, page: { page_no: number; row: number }) {
  const where = eq(miner_outputs.user_id, user_id);
  const [items, [{ n, sum }]] = await Promise.all([
    db.select().from(miner_outputs).where(where).orderBy(desc(miner_outputs.credited_at_ms), desc(miner_outputs.day), desc(miner_outputs.machine_id)).limit(page.row).offset((page.page_no - 1) * page.row),
    db.select({ n: sql<number>`count(*)`, sum: sql<number>`coalesce(sum(${miner_outputs.output_micro}), 0)` }).from(miner_outputs).where(where),
  ]);
  return { items, total: n, total_output_micro: sum };
}
