/**
 * The liquidity pool's money: buying (available → locked_pool), early redemption (penalty to
 * the platform, the rest back), and each completed day's reward (see accrual.ts). The
 * arithmetic is pool-math.ts; here is only who pays whom, in which batch, under which guard.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { pool_orders } from "../../db/schema";
import { platformAccount, userAccount } from "../ledger/accounts";
import type { MoneyFailure, Transfer } from "../ledger/transfer";
import { requestHash } from "../money/request-hash";
import { loanGate } from "../profiles/gate";
import { earnGuard } from "./batch";
import { postTransfers } from "../ledger/transfer";
import { completedDays, maturityAt, poolRedemption, poolRewardPerDay } from "./pool-math";
import { getPoolProduct } from "./products";

export type PoolOrder = typeof pool_orders.$inferSelect;

export type BuyPool = { user_id: number; product_id: number; amount_micro: number; request_key: string };
export type BuyPoolResult =
  | { status: "ok"; order: PoolOrder; replayed: boolean }
  | { status: "product_closed" | "amount_out_of_range" | "profile_incomplete" | "profile_rejected" | "idempotency_conflict" | MoneyFailure };

const findByRequest = (db: Db, user_id: number, request_key: string) => db.query.pool_orders.findFirst({ where: and(eq(pool_orders.user_id, user_id), eq(pool_orders.request_key, request_key)) });

async function replay(db: Db, input: BuyPool, hash: string): Promise<BuyPoolResult | null> {
  const existing = await findByRequest(db, input.user_id, input.request_key);
  if (!existing) return null;
  return existing.request_hash === hash ? { status: "ok", order: existing, replayed: true } : { status: "idempotency_conflict" };
}

/** Buys into an open product: the terms are copied onto the order, the amount is locked. */
export async function buyPool(db: Db, input: BuyPool, now_ms: number): Promise<BuyPoolResult> {
  const hash = requestHash({ kind: "pool", product_id: input.product_id, amount_micro: input.amount_micro });
  const earlier = await replay(db, input, hash);
  if (earlier) return earlier;
  const product = await getPoolProduct(db, input.product_id);
  if (!product || product.enabled !== 1) return { status: "product_closed" };
  if (input.amount_micro < product.min_amount_micro || input.amount_micro > product.max_amount_micro) return { status: "amount_out_of_range" };
  const gate = await loanGate(db, input.user_id);
  if (gate.status !== "ok") return gate;
  const order_id = sql`(SELECT id FROM pool_orders WHERE user_id = ${input.user_id} AND request_key = ${input.request_key})`;
  const lock: Transfer = {
    key: `pool:${input.user_id}:${input.request_key}:lock`,
    debit: userAccount(input.user_id, "available"),
    credit: userAccount(input.user_id, "locked_pool"),
    amount_micro: input.amount_micro,
    code: "pool_lock",
    ref_type: "pool_order",
    ref_id: sql`CAST(${order_id} AS TEXT)` as unknown as string,
  };
  const insert = db.insert(pool_orders).values({
    user_id: input.user_id,
    product_id: product.id,
    amount_micro: input.amount_micro,
    days: product.days,
    daily_rate_bp: product.daily_rate_bp,
    penalty_rate_bp: product.penalty_rate_bp,
    started_at_ms: now_ms,
    expires_at_ms: maturityAt(now_ms, product.days),
    status: "pending",
    request_key: input.request_key,
    request_hash: hash,
  });
  const r = await postTransfers(db, [lock], [insert], now_ms);
  if (r.status === "duplicate_request" || r.status === "duplicate") return (await replay(db, input, hash)) ?? r;
  if (r.status !== "ok") return r;
  return { status: "ok", order: (await findByRequest(db, input.user_id, input.request_key))!, replayed: false };
}

export function rewardTransfer(o: PoolOrder, day: number): Transfer {
  return { key: `pool:${o.id}:day:${day}`, debit: platformAccount("rewards"), credit: userAccount(o.user_id, "available"), amount_micro: poolRewardPerDay(o.amount_micro, o.daily_rate_bp), code: "pool_reward", ref_type: "pool_order", ref_id: String(o.id) };
}

function principalTransfer(o: PoolOrder, key: string, amount_micro: number, code: "pool_return" | "pool_penalty"): Transfer {
  const credit = code === "pool_return" ? userAccount(o.user_id, "available") : platformAccount("rewards");
  return { key, debit: userAccount(o.user_id, "locked_pool"), credit, amount_micro, code, ref_type: "pool_order", ref_id: String(o.id) };
}

/** Transfers with a zero amount are left out: the ledger records only movements. */
const moving = (ts: Transfer[]) => ts.filter((t) => t.amount_micro > 0);

/**
 * Credits day `day` of a pending order (the caller's next unpaid day). The guard requires the
 * order still pending with exactly day − 1 days paid; the transfer key is per order and day.
 * The last day also returns the principal and settles the order.
 */
export async function payPoolDay(db: Db, o: PoolOrder, day: number, now_ms: number) {
  const last = day === o.days;
  const reward = rewardTransfer(o, day);
  const guard = earnGuard("pool_order", o.id, sql`status = 'pending' AND days_paid = ${day - 1}`, `day:${day - 1}`, `day:${day}`, { kind: "system", id: null }, now_ms);
  const settleGuard = last ? [earnGuard("pool_order", o.id, sql`status = 'pending'`, "pending", "settled", { kind: "system", id: null }, now_ms)] : [];
  const update = db
    .update(pool_orders)
    .set({ days_paid: day, reward_paid_micro: sql`${pool_orders.reward_paid_micro} + ${reward.amount_micro}`, ...(last ? { status: "settled" as const, redeem_amount_micro: o.amount_micro, penalty_micro: 0, closed_at_ms: now_ms } : {}) })
    .where(and(eq(pool_orders.id, o.id), eq(pool_orders.days_paid, day - 1)));
  const transfers = moving([reward, ...(last ? [principalTransfer(o, `pool:${o.id}:return`, o.amount_micro, "pool_return")] : [])]);
  return postTransfers(db, transfers, [guard, ...settleGuard, update], now_ms);
}

export type RedeemResult = { status: "ok"; order: PoolOrder } | { status: "not_found" | "already_closed" | MoneyFailure };

/**
 * Early redemption. Days completed but not yet credited are credited in the same batch (each
 * under its own day key), so rewards earned are kept; the penalty is charged for the days
 * that remain. A second call finds the order closed and changes nothing.
 */
export async function redeemPool(db: Db, user_id: number, id: number, now_ms: number, attempt = 0): Promise<RedeemResult> {
  const o = await db.query.pool_orders.findFirst({ where: and(eq(pool_orders.id, id), eq(pool_orders.user_id, user_id)) });
  if (!o) return { status: "not_found" };
  if (o.status !== "pending") return { status: "already_closed" };
  const done = completedDays(o.started_at_ms, o.days, now_ms);
  // At maturity there is nothing to redeem early: accrual settles it in full.
  if (done >= o.days) return { status: "already_closed" };
  const r = poolRedemption(o, done);
  const days = Array.from({ length: done - o.days_paid }, (_, i) => o.days_paid + 1 + i);
  const rewards = days.map((d) => rewardTransfer(o, d));
  const unpaid = rewards.reduce((s, t) => s + t.amount_micro, 0);
  const items = [
    earnGuard("pool_order", o.id, sql`status = 'pending' AND days_paid = ${o.days_paid} AND user_id = ${user_id}`, "pending", "redeemed", { kind: "user", id: user_id }, now_ms),
    db
      .update(pool_orders)
      .set({ status: "redeemed", days_paid: done, reward_paid_micro: o.reward_paid_micro + unpaid, penalty_micro: r.penalty_micro, redeem_amount_micro: r.returned_micro, closed_at_ms: now_ms })
      .where(and(eq(pool_orders.id, o.id), eq(pool_orders.status, "pending"))),
  ];
  const transfers = moving([...rewards, principalTransfer(o, `pool:${o.id}:penalty`, r.penalty_micro, "pool_penalty"), principalTransfer(o, `pool:${o.id}:return`, r.returned_micro, "pool_return")]);
  const res = await postTransfers(db, transfers, items, now_ms);
  // A day credited by accrual meanwhile moved days_paid: read again and redeem from there.
  if ((res.status === "state_conflict" || res.status === "duplicate") && attempt < 2) return redeemPool(db, user_id, id, now_ms, attempt + 1);
  if (res.status === "state_conflict" || res.status === "duplicate") return { status: "already_closed" };
  if (res.status !== "ok") return res;
  return { status: "ok", order: (await db.query.pool_orders.findFirst({ where: eq(pool_orders.id, o.id) }))! };
}

export async function listPoolOrders(db: Db, user_id: number, page: { page_no: number; row: number }) {
  const where = eq(pool_orders.user_id, user_id);
  const [items, [{ n }]] = await Promise.all([
    db.select().from(pool_orders).where(where).orderBy(desc(pool_orders.id)).limit(page.row).offset((page.page_no - 1) * page.row),
    db.select({ n: sql<number>`count(*)` }).from(pool_orders).where(where),
  ]);
  return { items, total: n };
}
