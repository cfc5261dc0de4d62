import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatPriceE8, parsePriceE8 } from "../../../worker/domain/money/units";
import { breakEvenWinRateBp, MAX_ENTRY_WAIT_MS, MAX_STALENESS_MS, settle, tickAtOrBefore, winnings, type SettlementInput, type Tick } from "../../../worker/domain/trades/settlement";

/** An order accepted at 0 whose entry (stored by the hub) is the tick at 1 s, at 100. */
const order = ({ entry_price_e8, ...o }: Partial<SettlementInput> & { entry_price_e8?: number } = {}): SettlementInput => ({
  direction: "up",
  accepted_at_ms: 0,
  entry: { ts_ms: 1_000, price_e8: entry_price_e8 ?? 100_00000000 },
  stake_micro: 100_000_000,
  fee_micro: 1_000_000,
  profit_rate_bp: 8500,
  delivery_at_ms: 60_000,
  ...o,
});
const tick = (ts_ms: number, price: number): Tick => ({ ts_ms, price_e8: price * 1e8 });

describe("settle", () => {
  it("up wins above entry and pays stake + stake × rate", () => {
    const r = settle(order(), [tick(59_000, 101)]);
    expect(r).toMatchObject({ status: "won", payout_micro: 185_000_000, profit_micro: 84_000_000 });
  });

  it("up loses below entry", () => {
    expect(settle(order(), [tick(59_000, 99)])).toMatchObject({ status: "lost", payout_micro: 0, profit_micro: -101_000_000 });
  });

  it("down wins below and loses above", () => {
    expect(settle(order({ direction: "down" }), [tick(59_000, 99)]).status).toBe("won");
    expect(settle(order({ direction: "down" }), [tick(59_000, 101)]).status).toBe("lost");
  });

  it("equal is a tie that refunds the stake (the fee stays)", () => {
    for (const direction of ["up", "down"] as const) {
      expect(settle(order({ direction }), [tick(59_000, 100)])).toMatchObject({ status: "tie", payout_micro: 100_000_000, profit_micro: -1_000_000 });
    }
  });

  it("uses the latest tick at or before delivery, never one after", () => {
    const ticks = [tick(50_000, 90), tick(60_000, 101), tick(60_001, 50), tick(70_000, 200)];
    expect(settle(order(), ticks)).toMatchObject({ status: "won", settlement: { ts_ms: 60_000 } });
    expect(settle(order({ delivery_at_ms: 59_999 }), ticks)).toMatchObject({ status: "lost", settlement: { ts_ms: 50_000 } });
  });

  it("no tick, or only a stale one, voids and refunds stake and fee", () => {
    expect(settle(order(), [])).toEqual({ status: "void", reason: "no_tick", entry: { ts_ms: 1_000, price_e8: 100_00000000 }, payout_micro: 101_000_000, profit_micro: 0 });
    expect(settle(order(), [tick(60_000 - MAX_STALENESS_MS - 1, 500)]).status).toBe("void");
    expect(settle(order(), [tick(60_000 - MAX_STALENESS_MS, 500)]).status).toBe("won");
    expect(settle(order(), [tick(60_001, 500)]).status).toBe("void");
  });

  it("rounds winnings down to the micro-unit", () => {
    expect(winnings(1, 8500)).toBe(0);
    expect(winnings(333_333, 8500)).toBe(283_333);
    expect(winnings(9_000_000_000_000_000 / 10_000, 9999)).toBe(Number((BigInt(9e11) * 9999n) / 10000n));
  });

  it("is exact where floats are not: 555,555,555.55 USDT at 8,500 bp", () => {
    const stake = 555_555_555_550_000;
    expect(winnings(stake, 8500)).toBe(472_222_222_217_500);
    // What stake × rate in floats gave (the answers' expected income before): one micro short.
    expect(Math.floor((stake * 8500) / 10_000)).toBe(472_222_222_217_499);
  });

  it("properties: exactly one outcome; money is conserved; the result depends only on the price", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("up" as const, "down" as const),
        fc.integer({ min: 1, max: 1e12 }),
        fc.integer({ min: 1, max: 1e12 }),
        fc.integer({ min: 1, max: 1e9 }),
        fc.integer({ min: 0, max: 1e7 }),
        fc.integer({ min: 0, max: 20_000 }),
        (direction, entry, settlement, stake, fee, rate) => {
          const o = order({ direction, entry_price_e8: entry, stake_micro: stake, fee_micro: fee, profit_rate_bp: rate });
          const r = settle(o, [{ ts_ms: o.delivery_at_ms - 1, price_e8: settlement }]);
          const expected = entry === settlement ? "tie" : (settlement > entry) === (direction === "up") ? "won" : "lost";
          expect(r.status).toBe(expected);
          expect(Number.isSafeInteger(r.payout_micro)).toBe(true);
          expect(r.payout_micro).toBeGreaterThanOrEqual(0);
          // What the user ends with minus what they paid is the profit.
          expect(r.payout_micro - stake - fee).toBe(r.profit_micro);
          if (r.status === "won") expect(r.payout_micro).toBeLessThanOrEqual(stake + Math.floor((stake * rate) / 10_000) + 1);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it("a tie without a fee is a profit of exactly 0 (never -0)", () => {
    const o = order({ entry_price_e8: 27, stake_micro: 1, fee_micro: 0, profit_rate_bp: 0 });
    expect(Object.is(settle(o, [{ ts_ms: o.delivery_at_ms - 1, price_e8: 27 }]).profit_micro, 0)).toBe(true);
  });

  it("refuses nonsense orders instead of guessing", () => {
    expect(() => settle(order({ stake_micro: 0 }), [])).toThrow();
    expect(() => settle(order({ entry_price_e8: 0 }), [])).toThrow();
    expect(() => settle(order({ accepted_at_ms: 1.5 }), [])).toThrow();
  });
});

describe("the entry is the first tick after acceptance", () => {
  const open = (o: Partial<SettlementInput> = {}) => order({ entry: null, accepted_at_ms: 10_000, ...o });

  it("never a tick from before or at the moment of acceptance, whatever it says", () => {
    const ticks = [tick(9_000, 50), tick(10_000, 200), tick(10_400, 100), tick(59_000, 101)];
    expect(settle(open(), ticks)).toMatchObject({ status: "won", entry: { ts_ms: 10_400, price_e8: 100e8 }, settlement: { ts_ms: 59_000 } });
  });

  it("no tick within the wait after acceptance voids the order and refunds stake and fee", () => {
    const late = [tick(10_000 + MAX_ENTRY_WAIT_MS + 1, 100), tick(59_000, 101)];
    expect(settle(open(), late)).toEqual({ status: "void", reason: "no_entry_tick", entry: null, payout_micro: 101_000_000, profit_micro: 0 });
    expect(settle(open(), [tick(10_000 + MAX_ENTRY_WAIT_MS, 100), tick(59_000, 101)]).status).toBe("won");
  });

  it("the entry tick is never also the settlement tick: no price after the entry voids the order", () => {
    expect(settle(open(), [tick(10_400, 100), tick(9_000, 1)])).toMatchObject({ status: "void", reason: "no_tick", entry: { ts_ms: 10_400 } });
  });

  it("a stored entry is used as stored (the hub found the same tick)", () => {
    expect(settle(order({ entry: { ts_ms: 10_400, price_e8: 100e8 }, accepted_at_ms: 10_000 }), [tick(10_400, 1), tick(59_000, 101)])).toMatchObject({ status: "won", entry: { price_e8: 100e8 } });
  });

  it("property: ticks up to the moment of acceptance never change an outcome", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ ts_ms: fc.integer({ min: 0, max: 10_000 }), price_e8: fc.integer({ min: 1, max: 1e12 }) })), fc.integer({ min: 1, max: 1e12 }), fc.integer({ min: 1, max: 1e12 }), (before, entry, exit) => {
        const after = [tick(10_500, 0), tick(59_000, 0)].map((t, i) => ({ ...t, price_e8: i === 0 ? entry : exit }));
        expect(settle(open(), [...before, ...after])).toEqual(settle(open(), after));
      }),
    );
  });
});

describe("tickAtOrBefore", () => {
  it("matches a brute-force search for any set of ticks", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ ts_ms: fc.integer({ min: 0, max: 1000 }), price_e8: fc.integer({ min: 1, max: 100 }) })), fc.integer({ min: 0, max: 1000 }), (ticks, at) => {
        const r = tickAtOrBefore(ticks, at);
        const eligible = ticks.filter((t) => t.ts_ms <= at);
        if (eligible.length === 0) expect(r).toBeNull();
        else expect(r!.ts_ms).toBe(Math.max(...eligible.map((t) => t.ts_ms)));
      }),
    );
  });
});

describe("break-even win rate", () => {
  it("85 % payout with a 1 % fee needs 54.6 % wins", () => {
    expect(breakEvenWinRateBp(100_000_000, 1_000_000, 8500)).toBe(5460);
    expect(breakEvenWinRateBp(100_000_000, 0, 10_000)).toBe(5000);
  });

  it("at the break-even rate the expected profit is ≥ 0, one basis point below it < 0", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_000_000, max: 1e10 }), fc.integer({ min: 0, max: 1e8 }), fc.integer({ min: 100, max: 20_000 }), (stake, fee, rate) => {
        const p = breakEvenWinRateBp(stake, fee, rate);
        const ev = (pBp: number) => pBp * Math.floor((stake * rate) / 10_000) - (10_000 - pBp) * stake - 10_000 * fee;
        if (p <= 10_000) expect(ev(p)).toBeGreaterThanOrEqual(-stake); // rounding of winnings
        expect(ev(p - 1)).toBeLessThan(0);
      }),
    );
  });
});

describe("prices as scaled integers", () => {
  it("parses and formats without floats", () => {
    expect(parsePriceE8("61234.5")).toBe(6_123_450_000_000);
    expect(parsePriceE8("0.00000001")).toBe(1);
    expect(parsePriceE8("1.123456789")).toBeNull();
    expect(parsePriceE8("-1")).toBeNull();
    expect(parsePriceE8("0")).toBeNull();
    expect(formatPriceE8(6_123_450_000_000)).toBe("61234.50");
    expect(formatPriceE8(1)).toBe("0.00000001");
  });

  it("round-trips", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 90_000_000 }), fc.integer({ min: 0, max: 99_999_999 }), (whole, frac) => {
        const p = whole * 1e8 + frac;
        if (p === 0) return;
        expect(parsePriceE8(formatPriceE8(p))).toBe(p);
      }),
    );
  });
});
