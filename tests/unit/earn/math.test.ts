import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { minerEndsAt, minerOutputSoFar, minerTotalOutput } from "../../../worker/domain/earn/miner-math";
import { completedDays, DAY_MS, maturityAt, poolPenalty, poolQuote, poolRedemption, poolRedemptionTable, poolRewardPerDay, poolTotalReward } from "../../../worker/domain/earn/pool-math";

const USDT = 1_000_000;
const demo = { amount_micro: 10_000 * USDT, days: 7, daily_rate_bp: 68, penalty_rate_bp: 100 };

describe("pool arithmetic: the examples", () => {
  it("10,000 for 7 days at 0.68 % → 68 a day, 476 in all, maturing 7 × 24 h after purchase", () => {
    expect(poolRewardPerDay(demo.amount_micro, 68)).toBe(68 * USDT);
    expect(poolTotalReward(demo.amount_micro, 68, 7)).toBe(476 * USDT);
    expect(maturityAt(1_000, 7)).toBe(1_000 + 7 * DAY_MS);
    expect(poolQuote(demo, 5).maturity_at_ms).toBe(5 + 7 * DAY_MS);
  });

  it("ratio 1 % with 5 days left → penalty 500, returns 9,500; before day 1 completes → 700", () => {
    expect(poolRedemption(demo, 2)).toMatchObject({ remaining_days: 5, penalty_micro: 500 * USDT, returned_micro: 9_500 * USDT, rewards_micro: 136 * USDT });
    expect(poolRedemption(demo, 0).penalty_micro).toBe(700 * USDT);
    const table = poolRedemptionTable(demo);
    expect(table).toHaveLength(7);
    expect(table.map((r) => r.penalty_micro / USDT)).toEqual([700, 600, 500, 400, 300, 200, 100]);
  });

  it("rounds down, never up: 0.01 USDT at 0.68 % earns 68 micro-units a day", () => {
    expect(poolRewardPerDay(10_000, 68)).toBe(68);
    expect(poolRewardPerDay(1, 68)).toBe(0);
    expect(poolPenalty(199, 100, 1)).toBe(1);
  });

  it("counts completed days at purchase + n × 24 h, never beyond the cycle", () => {
    expect(completedDays(0, 7, DAY_MS - 1)).toBe(0);
    expect(completedDays(0, 7, DAY_MS)).toBe(1);
    expect(completedDays(0, 7, 100 * DAY_MS)).toBe(7);
    expect(completedDays(10, 7, 0)).toBe(0);
  });
});

// Up to 100 million USDT at up to 10 % a day for a year: totals stay exact integers (< 2^53).
const terms = fc.record({
  amount_micro: fc.integer({ min: 1, max: 100_000_000 * USDT }),
  days: fc.integer({ min: 1, max: 365 }),
  daily_rate_bp: fc.integer({ min: 1, max: 1_000 }),
  penalty_rate_bp: fc.integer({ min: 0, max: 10_000 }),
});

describe("pool arithmetic: properties", () => {
  it("money conserves on any redemption day: principal + rewards − penalty = what the user gets back", () => {
    fc.assert(
      fc.property(terms, fc.integer({ min: -5, max: 400 }), (t, day) => {
        const r = poolRedemption(t, day);
        expect(r.penalty_micro).toBeGreaterThanOrEqual(0);
        expect(r.penalty_micro).toBeLessThanOrEqual(t.amount_micro);
        expect(r.returned_micro + r.penalty_micro).toBe(t.amount_micro);
        expect(t.amount_micro + r.rewards_micro - r.penalty_micro).toBe(r.total_micro);
        expect(r.rewards_micro).toBe(poolRewardPerDay(t.amount_micro, t.daily_rate_bp) * r.completed_days);
        expect(Number.isSafeInteger(r.total_micro)).toBe(true);
      }),
    );
  });

  it("the rounding error of a day's reward is below one micro-unit, and the total is the days' sum", () => {
    fc.assert(
      fc.property(terms, (t) => {
        const perDay = poolRewardPerDay(t.amount_micro, t.daily_rate_bp);
        const exact = (BigInt(t.amount_micro) * BigInt(t.daily_rate_bp)) as bigint;
        expect(BigInt(perDay) * 10_000n <= exact && exact < BigInt(perDay + 1) * 10_000n).toBe(true);
        expect(poolTotalReward(t.amount_micro, t.daily_rate_bp, t.days)).toBe(perDay * t.days);
      }),
    );
  });

  it("completed days stay within 0 and the cycle, and grow with time", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2e12 }), fc.integer({ min: 1, max: 365 }), fc.integer({ min: 0, max: 2e12 }), fc.integer({ min: 0, max: 1e10 }), (start, days, now, later) => {
        const d = completedDays(start, days, now);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(days);
        expect(completedDays(start, days, now + later)).toBeGreaterThanOrEqual(d);
      }),
    );
  });
});

describe("miner arithmetic", () => {
  it("pays the daily output per completed day, ending after the cycle", () => {
    const plan = { price_micro: 300 * USDT, days: 30, daily_output_micro: 12 * USDT };
    expect(minerTotalOutput(plan)).toBe(360 * USDT);
    expect(minerOutputSoFar(plan, 1)).toBe(12 * USDT);
    expect(minerOutputSoFar(plan, 99)).toBe(360 * USDT);
    expect(minerEndsAt(0, 30)).toBe(30 * DAY_MS);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 365 }), fc.integer({ min: 1, max: 1e9 }), fc.integer({ min: -10, max: 400 }), (days, out, done) => {
        const so_far = minerOutputSoFar({ price_micro: 1, days, daily_output_micro: out }, done);
        expect(so_far).toBeGreaterThanOrEqual(0);
        expect(so_far).toBeLessThanOrEqual(days * out);
      }),
    );
  });
});
