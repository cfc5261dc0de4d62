/**
 * Earn: the liquidity pool and the cloud miner, under `/api/index/`: `product` with `type`
 * (without it the request falls through to the market detail in trades.ts), `buy`, `orders`,
 * `qx` (early redemption), `kjlist` (miner results) and `machines`. Lists first catch up the
 * user's own due days, so a page always shows every reward already earned.
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import { serverNow } from "../../clock";
import { accrueDue } from "../../domain/earn/accrual";
import { minerOutputSoFar, minerTotalOutput } from "../../domain/earn/miner-math";
import { buyMiner, listMachines, listOutputs, type MinerMachine } from "../../domain/earn/miner";
import { buyPool, listPoolOrders, redeemPool, type PoolOrder } from "../../domain/earn/pool";
import { poolRewardPerDay, poolTotalReward } from "../../domain/earn/pool-math";
import { listMinerPlans, listPoolProducts, type MinerPlan, type PoolProduct } from "../../domain/earn/products";
import { requireUser } from "../middleware/auth";
import { ApiError, ok, read } from "../envelope";
import { amount, id, pagination } from "../fields";
import { idempotencyKey } from "../idempotency";
import { usdt, usdtExact } from "../present";
import { formatPercentText } from "../../domain/money/units";
import type { AppEnv } from "../types";
import { moneyFailure } from "./money-errors";
import type { MoneyFailure } from "../../domain/ledger/transfer";

export function poolProductOut(p: PoolProduct) {
  return { id: p.id, name: p.name, days: p.days, daily_rate: formatPercentText(p.daily_rate_bp), daily_rate_bp: p.daily_rate_bp, min_amount: usdt(p.min_amount_micro), max_amount: usdt(p.max_amount_micro), min_amount_micro: p.min_amount_micro, max_amount_micro: p.max_amount_micro, penalty_rate: formatPercentText(p.penalty_rate_bp), penalty_rate_bp: p.penalty_rate_bp };
}

export function minerPlanOut(p: MinerPlan) {
  return { id: p.id, name: p.name, price: usdt(p.price_micro), price_micro: p.price_micro, days: p.days, daily_output: usdtExact(p.daily_output_micro), daily_output_micro: p.daily_output_micro, total_output: usdtExact(minerTotalOutput(p)), stock: p.stock };
}

export function poolOrderOut(o: PoolOrder) {
  const total = poolTotalReward(o.amount_micro, o.daily_rate_bp, o.days);
  return {
    id: o.id,
    product_id: o.product_id,
    amount: usdt(o.amount_micro),
    amount_micro: o.amount_micro,
    days: o.days,
    days_paid: o.days_paid,
    daily_rate: formatPercentText(o.daily_rate_bp),
    daily_rate_bp: o.daily_rate_bp,
    penalty_rate: formatPercentText(o.penalty_rate_bp),
    penalty_rate_bp: o.penalty_rate_bp,
    status: o.status,
    reward_per_day: usdtExact(poolRewardPerDay(o.amount_micro, o.daily_rate_bp)),
    estimated_revenue: usdtExact(total),
    estimated_revenue_micro: total,
    profit: usdtExact(o.reward_paid_micro),
    profit_micro: o.reward_paid_micro,
    penalty: o.penalty_micro === null ? null : usdtExact(o.penalty_micro),
    penalty_micro: o.penalty_micro,
    redeem_amount: o.redeem_amount_micro === null ? null : usdtExact(o.redeem_amount_micro),
    redeem_amount_micro: o.redeem_amount_micro,
    created_at: o.started_at_ms,
    expire_at: o.expires_at_ms,
    closed_at: o.closed_at_ms,
  };
}

export function machineOut(m: MinerMachine) {
  return { id: m.id, plan_id: m.plan_id, price: usdt(m.price_micro), price_micro: m.price_micro, days: m.days, days_paid: m.days_paid, daily_output: usdtExact(m.daily_output_micro), daily_output_micro: m.daily_output_micro, output: usdtExact(minerOutputSoFar(m, m.days_paid)), output_micro: minerOutputSoFar(m, m.days_paid), status: m.status, started_at: m.started_at_ms, ends_at: m.ends_at_ms };
}

export type PoolProductOut = ReturnType<typeof poolProductOut>;
export type MinerPlanOut = ReturnType<typeof minerPlanOut>;
export type PoolOrderOut = ReturnType<typeof poolOrderOut>;
export type MachineOut = ReturnType<typeof machineOut>;

const Type = z.enum(["pool", "miner"], { error: "errors.invalid_field" });
const Buy = z.object({ type: Type.default("pool"), product_id: id(), amount: amount().optional() });

/** The user's earn clock, after catching up their own due days (bounded, like the cron). */
async function caughtUpNow(c: Context<AppEnv>): Promise<number> {
  const now_ms = await serverNow(c.env, c.get("db"));
  await accrueDue(c.get("db"), now_ms, { user_id: c.get("user").id, max_steps: 60 });
  return now_ms;
}

function refused(status: string): never {
  const known = ["product_closed", "amount_out_of_range", "profile_incomplete", "profile_rejected", "out_of_stock", "already_closed"];
  if (known.includes(status)) throw new ApiError(`errors.${status}`);
  if (status === "idempotency_conflict") throw new ApiError("errors.idempotency_conflict", 409);
  throw moneyFailure(status as MoneyFailure | "not_found");
}

async function buy(c: Context<AppEnv>) {
  const body = read(c, Buy);
  const db = c.get("db");
  const user_id = c.get("user").id;
  const request_key = idempotencyKey(c);
  const now_ms = await serverNow(c.env, db);
  if (body.type === "miner") {
    const r = await buyMiner(db, { user_id, plan_id: body.product_id, request_key }, now_ms);
    if (r.status !== "ok") refused(r.status);
    return ok(c, { id: r.machine.id, machine: machineOut(r.machine) }, "errors.earn_bought");
  }
  if (body.amount === undefined) throw new ApiError("errors.incomplete");
  const r = await buyPool(db, { user_id, product_id: body.product_id, amount_micro: body.amount, request_key }, now_ms);
  if (r.status !== "ok") refused(r.status);
  return ok(c, { id: r.order.id, order: poolOrderOut(r.order) }, "errors.earn_bought");
}

export const earnApi = new Hono<AppEnv>()
  .on(["GET", "POST"], "/product", async (c, next) => {
    // Without `type` this is the market detail (trades.ts): let it through untouched.
    const type = c.get("input").type;
    if (type === undefined || type === null || type === "") return next();
    const t = read(c, z.object({ type: Type })).type;
    const db = c.get("db");
    if (t === "pool") return ok(c, (await listPoolProducts(db, { only_enabled: true })).map(poolProductOut));
    return ok(c, (await listMinerPlans(db, { only_enabled: true })).map(minerPlanOut));
  })
  .use("/buy", requireUser)
  .use("/orders", requireUser)
  .use("/qx", requireUser)
  .use("/kjlist", requireUser)
  .use("/machines", requireUser)
  .post("/buy", buy)
  .on(["GET", "POST"], "/orders", async (c) => {
    const page = read(c, z.object(pagination));
    await caughtUpNow(c);
    const r = await listPoolOrders(c.get("db"), c.get("user").id, page);
    return ok(c, { items: r.items.map(poolOrderOut), total: r.total, page_no: page.page_no, row: page.row });
  })
  .post("/qx", async (c) => {
    const { id: order_id } = read(c, z.object({ id: id() }));
    const now_ms = await caughtUpNow(c);
    const r = await redeemPool(c.get("db"), c.get("user").id, order_id, now_ms);
    if (r.status !== "ok") refused(r.status);
    return ok(c, poolOrderOut(r.order), "errors.earn_redeemed");
  })
  .on(["GET", "POST"], "/machines", async (c) => {
    await caughtUpNow(c);
    return ok(c, (await listMachines(c.get("db"), c.get("user").id)).map(machineOut));
  })
  .on(["GET", "POST"], "/kjlist", async (c) => {
    const page = read(c, z.object(pagination));
    await caughtUpNow(c);
    const r = await listOutputs(c.get("db"), c.get("user").id, page);
    return ok(c, {
      items: r.items.map((o) => ({ machine_id: o.machine_id, day: o.day, output: usdtExact(o.output_micro), output_micro: o.output_micro, credited_at: o.credited_at_ms })),
      total: r.total,
      page_no: page.page_no,
      row: page.row,
      total_output: usdtExact(r.total_output_micro),
      total_output_micro: r.total_output_micro,
    });
  });
