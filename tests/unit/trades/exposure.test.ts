import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { admits, NO_EXPOSURE, withOrder, worstCase, type Exposure, type ExposureOrder } from "../../../worker/domain/trades/exposure";
import { settle } from "../../../worker/domain/trades/settlement";

const USDT = 1_000_000;
const order = fc.record({
  direction: fc.constantFrom("up" as const, "down" as const),
  stake_micro: fc.integer({ min: 1, max: 10_000 * USDT }),
  profit_rate_bp: fc.integer({ min: 1, max: 20_000 }),
});
const fold = (orders: readonly ExposureOrder[]): Exposure => orders.reduce((e, o) => withOrder(e, o), NO_EXPOSURE);

/** The platform's result if `winner` won, computed by settling every order with the real rule. */
function platformLoss(orders: readonly ExposureOrder[], winner: "up" | "down"): number {
  const entry = 100 * 1e8;
  const tick = { ts_ms: 1000, price_e8: winner === "up" ? entry + 1 : entry - 1 };
  let loss = 0;
  for (const o of orders) {
    const r = settle({ ...o, accepted_at_ms: 0, entry: { ts_ms: 500, price_e8: entry }, fee_micro: 0, delivery_at_ms: 1000 }, [tick]);
    loss += r.payout_micro - o.stake_micro;
  }
  return loss;
}

describe("exposure", () => {
  it("worst case is the larger platform loss of the two outcomes, floored at zero, as settlement would pay", () => {
    fc.assert(
      fc.property(fc.array(order, { maxLength: 30 }), (orders) => {
        expect(worstCase(fold(orders))).toBe(Math.max(0, platformLoss(orders, "up"), platformLoss(orders, "down")));
      }),
    );
  });

  it("does not depend on the order in which orders arrive, and removing an order undoes adding it", () => {
    fc.assert(
      fc.property(fc.array(order, { maxLength: 20 }), order, (orders, extra) => {
        expect(fold([...orders].reverse())).toEqual(fold(orders));
        expect(withOrder(withOrder(fold(orders), extra), extra, -1)).toEqual(fold(orders));
      }),
    );
  });

  it("orders taken one after another under a limit never leave the worst case above it", () => {
    fc.assert(
      fc.property(fc.array(order, { maxLength: 40 }), fc.integer({ min: 0, max: 50_000 * USDT }), (orders, limit) => {
        let e = NO_EXPOSURE;
        for (const o of orders) if (admits(e, o, limit)) e = withOrder(e, o);
        expect(worstCase(e)).toBeLessThanOrEqual(limit);
      }),
    );
  });

  it("refuses exactly the orders that would push the worst case above the limit", () => {
    fc.assert(
      fc.property(fc.array(order, { maxLength: 20 }), order, fc.integer({ min: 0, max: 50_000 * USDT }), (orders, o, limit) => {
        const e = fold(orders);
        const after = worstCase(withOrder(e, o));
        expect(admits(e, o, limit)).toBe(after <= limit || after <= worstCase(e));
      }),
    );
  });

  it("an opposite-side order that lowers the worst case is taken even past the limit", () => {
    const e = withOrder(NO_EXPOSURE, { direction: "up", stake_micro: 100 * USDT, profit_rate_bp: 9000 });
    expect(worstCase(e)).toBe(90 * USDT);
    expect(admits(e, { direction: "up", stake_micro: 10 * USDT, profit_rate_bp: 9000 }, 90 * USDT)).toBe(false);
    expect(admits(e, { direction: "down", stake_micro: 50 * USDT, profit_rate_bp: 9000 }, 10 * USDT)).toBe(true);
    expect(worstCase(withOrder(e, { direction: "down", stake_micro: 50 * USDT, profit_rate_bp: 9000 }))).toBe(40 * USDT);
  });
});
