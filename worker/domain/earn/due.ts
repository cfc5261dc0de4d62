/**
 * Rewards due in the next 24 hours, for the console overview: what the accrual will credit
 * (pool rewards and miner outputs) for days that complete by `now + 24 h`. Day n of a holding
 * completes at `started_at + n × 24 h`; a day already complete but not yet paid (the accrual
 * catches up after downtime) is due as well, since it is paid at the next run. The day and
 * reward rules are the accrual's own (pool-math.ts), called, not re-typed.
 */
import { completedDays, DAY_MS, poolRewardPerDay } from "./pool-math";

export type RunningPoolOrder = { amount_micro: number; daily_rate_bp: number; days: number; days_paid: number; started_at_ms: number };
export type RunningMachine = { daily_output_micro: number; days: number; days_paid: number; started_at_ms: number };

/** How many unpaid days of a holding complete by `until_ms` (never past its cycle). */
export function daysCompleteBy(h: { days: number; days_paid: number; started_at_ms: number }, until_ms: number): number {
  return Math.max(0, completedDays(h.started_at_ms, h.days, until_ms) - h.days_paid);
}

export function rewardsDueWithin24h(now_ms: number, pool: RunningPoolOrder[], machines: RunningMachine[]): { pool_micro: number; miner_micro: number; total_micro: number } {
  const until = now_ms + DAY_MS;
  const pool_micro = pool.reduce((sum, o) => sum + daysCompleteBy(o, until) * poolRewardPerDay(o.amount_micro, o.daily_rate_bp), 0);
  const miner_micro = machines.reduce((sum, m) => sum + daysCompleteBy(m, until) * m.daily_output_micro, 0);
  return { pool_micro, miner_micro, total_micro: pool_micro + miner_micro };
}
