/**
 * `/api/admin/earn`: operators list, create, edit, close and reopen liquidity-pool products and
 * cloud-miner plans; `/api/admin/users/:id/earn` shows one user's holdings. Every change
 * carries a reason and is audit-logged (worker/domain/earn/products.ts). Terms cannot change
 * while anything bought under them runs: the operator closes the product and makes a new one.
 */
import { Hono } from "hono";
import { z } from "zod";
import { eq, sql } from "drizzle-orm";
import { miner_machines, pool_orders } from "../../db/schema";
import { serverNow } from "../../clock";
import { getMinerPlan, getPoolProduct, listMinerPlans, listPoolProducts, saveMinerPlan, savePoolProduct, type MinerPlan, type PoolProduct, type SaveResult } from "../../domain/earn/products";
import { userHoldings, type MinerHolding, type PoolHolding } from "../../domain/earn/holdings";
import { formatPercentText, parsePercentBp } from "../../domain/money/units";
import { requireOperator } from "../middleware/auth";
import { ApiError, ok, read } from "../envelope";
import { amount, int, optionalId, pathId, text } from "../fields";
import { usdt } from "../present";
import type { AppEnv } from "../types";

/**
 * A rate typed as a percent with at most 2 decimals ("0.68", "1") as basis points (68, 100).
 * Zero only where `zero` allows it (an early-redemption ratio may be 0); never above 100 %.
 */
function percent(opts: { zero: boolean }) {
  return z.unknown().transform((v, ctx) => {
    const text = typeof v === "number" ? String(v) : typeof v === "string" ? v.trim() : "";
    if (text === "") {
      ctx.addIssue({ code: "custom", message: "errors.incomplete" });
      return z.NEVER;
    }
    const bp = parsePercentBp(text);
    // Only a penalty ratio may be 0 (no charge for early redemption); a reward rate may not.
    if (bp === null || bp > 10_000 || (bp === 0 && !opts.zero)) {
      ctx.addIssue({ code: "custom", message: "errors.earn_rate_invalid" });
      return z.NEVER;
    }
    return bp;
  });
}

const flag = z.preprocess((v) => v === true || v === "1" || v === "on" || v === "true", z.boolean());
const Reason = z.object({ reason: text({ max: 500, invalid: "errors.reason_required" }) });
const days = int({ min: 1, max: 3650 });

const PoolBody = Reason.extend({
  id: optionalId(),
  name: text({ max: 60 }),
  days,
  daily_rate: percent({ zero: false }),
  min_amount: amount(),
  max_amount: amount(),
  penalty_rate: percent({ zero: true }),
  enabled: flag,
  sort: int({ min: 0, max: 1000, fallback: 0 }),
});

const MinerBody = Reason.extend({
  id: optionalId(),
  name: text({ max: 60 }),
  price: amount(),
  days,
  daily_output: amount(),
  stock: int({ min: 0, max: 1_000_000 }),
  enabled: flag,
  sort: int({ min: 0, max: 1000, fallback: 0 }),
});

const Toggle = Reason.extend({ enabled: flag });



function poolOut(p: PoolProduct, running: number) {
  return {
    id: p.id,
    name: p.name,
    days: p.days,
    daily_rate: formatPercentText(p.daily_rate_bp),
    daily_rate_bp: p.daily_rate_bp,
    min_amount: usdt(p.min_amount_micro),
    min_amount_micro: p.min_amount_micro,
    max_amount: usdt(p.max_amount_micro),
    max_amount_micro: p.max_amount_micro,
    penalty_rate: formatPercentText(p.penalty_rate_bp),
    penalty_rate_bp: p.penalty_rate_bp,
    enabled: p.enabled === 1,
    sort: p.sort,
    /** Pending orders under it; while above 0 its terms are locked. */
    running,
  };
}

function minerOut(m: MinerPlan, running: number) {
  return {
    id: m.id,
    name: m.name,
    price: usdt(m.price_micro),
    price_micro: m.price_micro,
    days: m.days,
    daily_output: usdt(m.daily_output_micro),
    daily_output_micro: m.daily_output_micro,
    stock: m.stock,
    enabled: m.enabled === 1,
    sort: m.sort,
    /** Running machines of the plan; while above 0 its terms are locked. */
    running,
  };
}

function poolHoldingOut(o: PoolHolding) {
  return {
    id: o.id,
    product_id: o.product_id,
    product_name: o.product_name,
    amount: usdt(o.amount_micro),
    amount_micro: o.amount_micro,
    days: o.days,
    days_paid: o.days_paid,
    daily_rate: formatPercentText(o.daily_rate_bp),
    reward_paid: usdt(o.reward_paid_micro),
    reward_paid_micro: o.reward_paid_micro,
    redeem_amount: o.redeem_amount_micro === null ? null : usdt(o.redeem_amount_micro),
    status: o.status,
    started_at_ms: o.started_at_ms,
    expires_at_ms: o.expires_at_ms,
  };
}

function minerHoldingOut(m: MinerHolding) {
  return {
    id: m.id,
    plan_id: m.plan_id,
    plan_name: m.plan_name,
    price: usdt(m.price_micro),
    price_micro: m.price_micro,
    days: m.days,
    days_paid: m.days_paid,
    daily_output: usdt(m.daily_output_micro),
    output: usdt(m.output_micro),
    output_micro: m.output_micro,
    status: m.status,
    started_at_ms: m.started_at_ms,
    ends_at_ms: m.ends_at_ms,
  };
}

function saved<T extends { id: number }>(r: SaveResult<T>) {
  if (r.status === "ok") return r.row.id;
  if (r.status === "not_found") throw new ApiError("errors.not_found", 404);
  if (r.status === "four_eyes_same_operator") throw new ApiError("errors.earn_open_four_eyes");
  throw new ApiError("errors.earn_terms_locked");
}

export const adminEarnApi = new Hono<AppEnv>()
  .use("*", requireOperator)
  .on(["GET", "POST"], "/earn", async (c) => {
    const db = c.get("db");
    const [pool, miner, [poolRunning, minerRunning]] = await Promise.all([
      listPoolProducts(db, { only_enabled: false }),
      listMinerPlans(db, { only_enabled: false }),
      db.batch([
        db.select({ id: pool_orders.product_id, n: sql<number>`count(*)` }).from(pool_orders).where(eq(pool_orders.status, "pending")).groupBy(pool_orders.product_id),
        db.select({ id: miner_machines.plan_id, n: sql<number>`count(*)` }).from(miner_machines).where(eq(miner_machines.status, "running")).groupBy(miner_machines.plan_id),
      ]),
    ]);
    const count = (rows: { id: number; n: number }[], id: number) => rows.find((r) => r.id === id)?.n ?? 0;
    return ok(c, { pool: pool.map((p) => poolOut(p, count(poolRunning, p.id))), miner: miner.map((m) => minerOut(m, count(minerRunning, m.id))) });
  })
  .post("/earn/pool/save", async (c) => {
    const { id, reason, daily_rate, min_amount, max_amount, penalty_rate, ...rest } = read(c, PoolBody);
    if (max_amount < min_amount) throw new ApiError("errors.earn_max_below_min", 200, {}, { field: "max_amount" });
    const db = c.get("db");
    const input = { ...rest, daily_rate_bp: daily_rate, min_amount_micro: min_amount, max_amount_micro: max_amount, penalty_rate_bp: penalty_rate };
    return ok(c, { id: saved(await savePoolProduct(db, c.get("operator").id, id, input, reason, await serverNow(c.env, db))) }, "errors.saved");
  })
  .post("/earn/miner/save", async (c) => {
    const { id, reason, price, daily_output, ...rest } = read(c, MinerBody);
    const db = c.get("db");
    const input = { ...rest, price_micro: price, daily_output_micro: daily_output };
    return ok(c, { id: saved(await saveMinerPlan(db, c.get("operator").id, id, input, reason, await serverNow(c.env, db))) }, "errors.saved");
  })
  .post("/earn/pool/:id/enabled", async (c) => {
    // Closing (or reopening) keeps every term: only whether new orders may be placed changes.
    const { enabled, reason } = read(c, Toggle);
    const db = c.get("db");
    const p = await getPoolProduct(db, pathId(c.req.param("id")));
    if (!p) throw new ApiError("errors.not_found", 404);
    const { id, created_at_ms: _created, ...terms } = p;
    return ok(c, { id: saved(await savePoolProduct(db, c.get("operator").id, id, { ...terms, enabled }, reason, await serverNow(c.env, db))) }, "errors.saved");
  })
  .post("/earn/miner/:id/enabled", async (c) => {
    const { enabled, reason } = read(c, Toggle);
    const db = c.get("db");
    const m = await getMinerPlan(db, pathId(c.req.param("id")));
    if (!m) throw new ApiError("errors.not_found", 404);
    const { id, created_at_ms: _created, ...terms } = m;
    return ok(c, { id: saved(await saveMinerPlan(db, c.get("operator").id, id, { ...terms, enabled }, reason, await serverNow(c.env, db))) }, "errors.saved");
  })
  .on(["GET", "POST"], "/users/:id/earn", async (c) => {
    const h = await userHoldings(c.get("db"), pathId(c.req.param("id")));
    return ok(c, { pool: h.pool.map(poolHoldingOut), miner: h.miner.map(minerHoldingOut) });
  });
