import { describe, expect, it } from "vitest";
import { daysCompleteBy, rewardsDueWithin24h } from "../../../worker/domain/earn/due";
import { DAY_MS, poolRewardPerDay as poolDailyReward } from "../../../worker/domain/earn/pool-math";

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

describe("rewards due in the next 24 hours", () => {
  it("pays 10,000 at 0.68 % as 68 a day, floored to the micro-unit", () => {
    expect(poolDailyReward(10_000_000_000, 68)).toBe(68_000_000);
    expect(poolDailyReward(1_000_001, 68)).toBe(6_800);
  });

  it("counts the one day that completes within 24 h, and none of a fresh day that completes later", () => {
    const order = { amount_micro: 10_000_000_000, daily_rate_bp: 68, days: 7, days_paid: 0, started_at_ms: NOW - 1000 };
    // Day 1 completes at started + 24 h = now + 24 h − 1 s: inside the window.
    expect(rewardsDueWithin24h(NOW, [order], []).pool_micro).toBe(68_000_000);
    // Bought one second from now: day 1 completes one second after the window.
    expect(rewardsDueWithin24h(NOW, [{ ...order, started_at_ms: NOW + 1000 }], []).pool_micro).toBe(0);
  });

  it("adds days already complete but not yet paid (the accrual catches them up)", () => {
    const m = { daily_output_micro: 2_500_000, days: 30, days_paid: 1, started_at_ms: NOW - 3 * DAY_MS - 5 };
    // Days 2 and 3 overdue, day 4 completes within the window.
    expect(daysCompleteBy(m, NOW + DAY_MS)).toBe(3);
    expect(rewardsDueWithin24h(NOW, [], [m])).toEqual({ pool_micro: 0, miner_micro: 7_500_000, total_micro: 7_500_000 });
  });

  it("never counts past the cycle or days already paid", () => {
    const m = { daily_output_micro: 1_000_000, days: 5, days_paid: 4, started_at_ms: NOW - 10 * DAY_MS };
    expect(daysCompleteBy(m, NOW + DAY_MS)).toBe(1);
    expect(daysCompleteBy({ ...m, days_paid: 5 }, NOW + DAY_MS)).toBe(0);
  });

  it("sums pool and miner holdings", () => {
    const pool = [
      { amount_micro: 1_000_000_000, daily_rate_bp: 100, days: 7, days_paid: 2, started_at_ms: NOW - 2.5 * DAY_MS },
      { amount_micro: 500_000_000, daily_rate_bp: 50, days: 7, days_paid: 0, started_at_ms: NOW - 0.5 * DAY_MS },
    ];
    const machines = [{ daily_output_micro: 3_000_000, days: 10, days_paid: 0, started_at_ms: NOW - 0.2 * DAY_MS }];
    expect(rewardsDueWithin24h(NOW, pool, machines)).toEqual({ pool_micro: 10_000_000 + 2_500_000, miner_micro: 3_000_000, total_micro: 15_500_000 });
  });
});
