import { describe, expect, it } from "vitest";
import { checkOrder, MAX_TICK_AGE_MS } from "../../../worker/domain/trades/order-check";
import { input, product } from "./market-fixture";

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
