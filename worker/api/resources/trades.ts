/**
 * Markets and timed trades: `/api/index/product_list`, `/api/index/product`,
 * `/api/index/candles` (public), and `/api/order/*` (signed in).
 */
import { Hono } from "hono";
import { z } from "zod";
import { breakEvenWinRateBp, winnings } from "../../domain/trades/settlement";
import { formatPriceE8, parsePriceE8 } from "../../domain/money/units";
import { getProduct, listProducts, type Duration, type ProductWithDurations } from "../../domain/trades/products";
import { getUserOrder, listUserOrders, type Order } from "../../domain/trades/orders";
import { orderFee } from "../../domain/trades/settlement";
import { requireUser, tokenFrom } from "../middleware/auth";
import { hashSessionToken } from "../../domain/identity/session";
import { limiterNetworkOf } from "../../domain/identity/client";
import { hubConfigForProduct, hubFor, hubStub } from "../../quotes";
import { ApiError, ok, read } from "../envelope";
import { amount, id, int, optionalId, pagination } from "../fields";
import { idempotencyKey } from "../idempotency";
import { usdt, usdtExact } from "../present";
import type { AppEnv } from "../types";
import { modeOf } from "../../mode";
import { orderRefusalError } from "./limits";
import { currentRequestId } from "../../observability/log";

const INTERVALS = { "1m": 60_000, "5m": 300_000, "15m": 900_000, "1h": 3_600_000 } as const;

const rate = (bp: number) => bp / 10_000;

function durationOut(d: Duration) {
  return { seconds: d.seconds, profit_rate: rate(d.profit_rate_bp), profit_rate_bp: d.profit_rate_bp, min_amount: usdt(d.min_stake_micro), max_amount: usdt(d.max_stake_micro), min_amount_micro: d.min_stake_micro, max_amount_micro: d.max_stake_micro };
}

async function productOut(env: AppEnv["Bindings"], p: ProductWithDurations) {
  const q = await (await hubFor(env, p)).quote();
  return {
    id: p.id,
    symbol: p.symbol,
    name: p.name,
    price: q ? formatPriceE8(q.price_e8) : null,
    change_pct: q ? (q.change_bp / 100).toFixed(2) : null,
    open: q ? formatPriceE8(q.open_e8) : null,
    high: q ? formatPriceE8(q.high_e8) : null,
    low: q ? formatPriceE8(q.low_e8) : null,
    volume: q ? formatPriceE8(q.volume_e8, 0) : null,
    quote_ts: q?.ts_ms ?? null,
    simulated: q?.simulated ?? (env.PRICE_FEED ?? "simulation") !== "binance",
    fee_rate: rate(p.fee_rate_bp),
    fee_rate_bp: p.fee_rate_bp,
    /** Names these terms (fee, payout rates, stakes, hours): an order sends it back, and is refused if they changed. */
    terms_version: p.terms_version,
    quote_tolerance_bp: p.quote_tolerance_bp,
    trading_hours: p.trading_hours,
    durations: p.durations.map(durationOut),
  };
}

export function orderOut(o: Order, ticks: { ts_ms: number; price_e8: number; role: "entry" | "settlement" | "context" }[] = []) {
  const gain = o.status === "open" ? null : o.profit_micro;
  return {
    id: o.id,
    product_id: o.product_id,
    symbol: o.symbol,
    direction: o.direction,
    amount: usdt(o.stake_micro),
    amount_micro: o.stake_micro,
    fee: usdtExact(o.fee_micro),
    fee_micro: o.fee_micro,
    seconds: o.seconds,
    terms_version: o.terms_version,
    profit_rate: rate(o.profit_rate_bp),
    profit_rate_bp: o.profit_rate_bp,
    expected_income: usdtExact(winnings(o.stake_micro, o.profit_rate_bp)),
    quote_price: formatPriceE8(o.quote_price_e8),
    /** Null until the first tick after acceptance arrives (a second at most on a live feed). */
    entry_price: o.entry_price_e8 === null ? null : formatPriceE8(o.entry_price_e8),
    entry_ts: o.entry_tick_ts_ms,
    settlement_price: o.settlement_price_e8 === null ? null : formatPriceE8(o.settlement_price_e8),
    settlement_ts: o.settlement_tick_ts_ms,
    payout: o.payout_micro === null ? null : usdtExact(o.payout_micro),
    payout_micro: o.payout_micro,
    profit: gain === null ? null : usdtExact(gain),
    profit_micro: gain,
    status: o.status,
    void_reason: o.void_reason,
    created_at: o.created_at_ms,
    delivery_at: o.delivery_at_ms,
    settled_at: o.settled_at_ms,
    ticks: ticks.map((t) => ({ ts: t.ts_ms, price: formatPriceE8(t.price_e8), role: t.role, used: t.role !== "context" })),
  };
}

/** What the markets and trade screens read: declared once, here, and imported by app/. */
export type DurationOut = ReturnType<typeof durationOut>;
export type ProductOut = Awaited<ReturnType<typeof productOut>>;
export type OrderOut = ReturnType<typeof orderOut>;

/** Lists leave the tick audit out: it belongs to the detail. */
function listOut(o: Order) {
  const { ticks: _ticks, ...rest } = orderOut(o);
  return rest;
}

const AddOrder = z.object({
  product_id: id(),
  direction: z.enum(["up", "down"], { error: "errors.direction_invalid" }),
  amount: amount(),
  seconds: int({ min: 1, max: 86_400 }),
  quote_price: z.union([z.string(), z.number()], { error: "errors.incomplete" }).transform((v, ctx) => {
    const p = parsePriceE8(v);
    if (p === null) {
      ctx.addIssue({ code: "custom", message: "errors.invalid_field" });
      return z.NEVER;
    }
    return p;
  }),
  /** The market's terms version the order sheet showed (`terms_version` of the product); our pages always send it. */
  terms_version: optionalId().transform((v) => v ?? undefined),
});

export const marketsApi = new Hono<AppEnv>()
  .on(["GET", "POST"], "/product_list", async (c) => {
    const products = await listProducts(c.get("db"), { only_enabled: true });
    return ok(c, await Promise.all(products.map((p) => productOut(c.env, p))));
  })
  .on(["GET", "POST"], "/product", async (c) => {
    const { id: product_id } = read(c, z.object({ id: id() }));
    const p = await getProduct(c.get("db"), product_id);
    if (!p || p.enabled !== 1) throw new ApiError("errors.product_unknown", 404);
    return ok(c, await productOut(c.env, p));
  })
  .on(["GET", "POST"], "/candles", async (c) => {
    const q = read(c, z.object({ id: id(), interval: z.enum(["1m", "5m", "15m", "1h"], { error: "errors.invalid_field" }).default("1m"), limit: int({ min: 10, max: 1000, fallback: 300 }) }));
    const p = await getProduct(c.get("db"), q.id);
    if (!p || p.enabled !== 1) throw new ApiError("errors.not_found", 404);
    const candles = await (await hubFor(c.env, p)).candles(INTERVALS[q.interval], q.limit);
    return ok(c, candles.map((k) => ({ t: k.t_ms, o: formatPriceE8(k.o), h: formatPriceE8(k.h), l: formatPriceE8(k.l), c: formatPriceE8(k.c), v: formatPriceE8(k.v, 0) })));
  });

/**
 * `/api/order/addorder`, mounted ahead of `orderApi` and its session middleware: the symbol's
 * hub resolves the session from its memory (decision 106), so placing an order reads nothing
 * from D1 on the way. The hub also wakes the transparency log, once per group of orders.
 */
export const placeOrderApi = new Hono<AppEnv>().post("/addorder", async (c) => {
  // Real money is never staked without the real feed (decision 122): no simulation stands in.
  if (modeOf(c.env) === "unready") throw new ApiError("errors.feed_unavailable", 503);
  const token = tokenFrom(c.req.raw.headers);
  if (!token || token.length > 100) throw new ApiError("errors.unauthorized", 401);
  const body = read(c, AddOrder);
  const token_hash = hashSessionToken(token);
  // Requests without Cloudflare's client address (in-process calls) count per session only.
  const network = limiterNetworkOf(c.req.header("cf-connecting-ip"));
  // The symbol's QuoteHub checks the order against the product's rules and its latest tick,
  // and writes it (grouped with the orders arriving at the same moment).
  const input = { product_id: body.product_id, direction: body.direction, stake_micro: body.amount, seconds: body.seconds, quote_price_e8: body.quote_price, request_key: idempotencyKey(c), terms_version: body.terms_version };
  const place = async (fresh: boolean) => {
    const config = await hubConfigForProduct(c.get("db"), body.product_id, { fresh });
    if (!config) throw new ApiError("errors.not_found", 404);
    const placed = await hubStub(c.env, config.symbol).placeAs(config, token_hash, input, network, currentRequestId());
    if (placed.status === "unauthorized") throw new ApiError("errors.unauthorized", 401);
    if (placed.status === "too_fast") throw new ApiError("errors.orders_too_fast", 429, {}, { retry_after_ms: placed.retry_after_ms });
    return placed;
  };
  let placed = await place(false);
  // A remembered route can only be stale if the database was reset under a running isolate.
  if (placed.result.status === "product_unknown") placed = await place(true);
  const r = placed.result;
  if (r.status === "product_unknown") throw new ApiError("errors.not_found", 404);
  if (r.status === "price_moved") throw new ApiError("errors.price_moved", 200, { price: formatPriceE8(r.entry_price_e8) }, { price: formatPriceE8(r.entry_price_e8) });
  // The sheet's terms are no longer in force: the page reads the market again and shows the new ones.
  if (r.status === "terms_changed") throw new ApiError("errors.terms_changed", 200, {}, { terms_version: r.terms_version });
  if (r.status === "stake_out_of_range") throw new ApiError("errors.stake_out_of_range", 200, { min: usdt(r.min_stake_micro), max: usdt(r.max_stake_micro) });
  if (r.status === "limit_reached" || r.status === "self_excluded") throw await orderRefusalError(c, placed.user_id, r);
  if (r.status !== "ok") throw new ApiError(`errors.${r.status}`);
  // No server notice here: the page that placed the order tells the user's other pages
  // over its own channel (protocol `changed`); settlement results are pushed by the hub.
  return ok(c, { id: r.order.id, server_time: Date.now(), order: orderOut(r.order) }, "errors.order_placed");
});

export const orderApi = new Hono<AppEnv>()
  .use("*", requireUser)
  .post("/quote", async (c) => {
    // What the confirmation sheet shows before the user commits: fee, income, break-even.
    const body = read(c, z.object({ product_id: id(), amount: amount(), seconds: int({ min: 1, max: 86_400 }) }));
    const p = await getProduct(c.get("db"), body.product_id);
    if (!p || p.enabled !== 1) throw new ApiError("errors.product_unknown", 404);
    const d = p.durations.find((x) => x.seconds === body.seconds);
    if (!d) throw new ApiError("errors.duration_unknown");
    const fee = orderFee(body.amount, p.fee_rate_bp);
    return ok(c, {
      amount: usdt(body.amount),
      fee: usdtExact(fee),
      expected_income: usdtExact(winnings(body.amount, d.profit_rate_bp)),
      guarantee: usdt(body.amount),
      break_even_win_rate: breakEvenWinRateBp(body.amount, fee, d.profit_rate_bp) / 100,
    });
  })
  .post("/hold", async (c) => {
    const page = read(c, z.object(pagination));
    const { items, total } = await listUserOrders(c.get("db"), c.get("user").id, "open", page);
    return ok(c, { items: items.map((o) => listOut(o)), total, server_time: Date.now() });
  })
  .post("/orderlist", async (c) => {
    const page = read(c, z.object(pagination));
    const { items, total } = await listUserOrders(c.get("db"), c.get("user").id, "settled", page);
    return ok(c, { items: items.map((o) => listOut(o)), total, server_time: Date.now() });
  })
  .post("/orderinfo", async (c) => {
    const { id: order_id } = read(c, z.object({ id: id() }));
    const found = await getUserOrder(c.get("db"), c.get("user").id, order_id);
    if (!found) throw new ApiError("errors.not_found", 404);
    return ok(c, { ...orderOut(found.order, found.ticks), server_time: Date.now() });
  });
