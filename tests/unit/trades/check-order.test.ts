import { describe, expect, it } from "vitest";
import { checkOrder, MAX_TICK_AGE_MS, type PlaceOrder, type ProductWithDurations } from "../../../worker/domain/trades/orders";

const USDT = 1_000_000;
const product: ProductWithDurations = {
  id: 1,
  symbol: "BTC/USDT",
  name: "Bitcoin",
  feed_symbol: "BTCUSDT",
  start_price_e8: 60_000e8,
  tick_size_e8: 1_000_000,
  fee_rate_bp: 100,
  quote_tolerance_bp: 50,
  trading_hours: "",
  exposure_limit_micro: 100_000 * USDT,
  enabled: 1,
  sort: 0,
  created_at_ms: 0,
  durations: [{ product_id: 1, seconds: 30, profit_rate_bp: 8500, min_stake_micro: 10 * USDT, max_stake_micro: 1000 * USDT }],
};
const input: PlaceOrder = { user_id: 7, product_id: 1, direction: "up", stake_micro: 100 * USDT, seconds: 30, quote_price_e8: 60_000e8, request_key: "client:k1" };
const NOW = 1_800_000_000_000;
const tickAged = (age_ms: number) => ({ ts_ms: NOW - age_ms, price_e8: 60_000e8 });

describe("checkOrder: price freshness", () => {
  it("a tick exactly 2 s old still prices the order", () => {
    expect(MAX_TICK_AGE_MS).toBe(2_000);
    const r = checkOrder(product, input, tickAged(2_000), NOW);
    expect(r.status).toBe("ok");
    if (r.status === "ok") expect(r.order.latest).toEqual(tickAged(2_000));
  });

  it("a tick 2,001 ms old refuses the order as price_stale", () => {
    expect(checkOrder(product, input, tickAged(2_001), NOW)).toEqual({ status: "price_stale" });
    expect(checkOrder(product, input, tickAged(60_000), NOW)).toEqual({ status: "price_stale" });
  });

  it("no tick at all stays no_price", () => {
    expect(checkOrder(product, input, null, NOW)).toEqual({ status: "no_price" });
  });

  it("a stale price is reported before a moved one (the old price proves nothing)", () => {
    expect(checkOrder(product, { ...input, quote_price_e8: 50_000e8 }, tickAged(5_000), NOW)).toEqual({ status: "price_stale" });
    expect(checkOrder(product, { ...input, quote_price_e8: 50_000e8 }, tickAged(1_000), NOW).status).toBe("price_moved");
  });
});
