/**
 * Rewards due in the next 24 hours, for the console overview: what the accrual will credit
 * (pool rewards and miner outputs) for days that complete by `now + 24 h`. Day n of a holding
 * completes at `started_at + n × 24 h`; a day already complete but not yet paid (the accrual
 * catches up after downtime) is due as well, since it is paid at the next run.
 */
export const DAY_MS = 86_400_000;

export type RunningPoolOrder = { amount_micro: number; daily_rate_bp: number; days: number; days_paid: number; started_at_ms: number };
export type RunningMachine = { daily_output_micro: number; days: number; days_paid: number; started_at_ms: number };

/** A pool order's reward for one day: floor(amount × rate_bp / 10,000), the accrual's rule. */
export function poolDailyReward(amount_micro: number, daily_rate_bp: number): number {
  return Math.floor((amount_micro * daily_rate_bp) / 10_000);
}

/** How many unpaid days of a holding complete by `until_ms` (never past its cycle). */
export function daysCompleteBy(h: { days: number; days_paid: number; started_at_ms: number }, until_ms: number): number {
  const complete = Math.min(h.days, Math.max(0, Math.floor((until_ms - h.started_at_ms) / DAY_MS)));
  return Math.max(0, complete - h.days_paid);
}

export function rewardsDueWithin24h(now_ms: number, pool: RunningPoolOrder[], machines: RunningMachine[]): { pool_micro: number; miner_micro: number; total_micro: number } {
  const until = now_ms + DAY_MS;
  const pool_micro = pool.reduce((sum, o) => sum + daysCompleteBy(o, until) * poolDailyReward(o.amount_micro, o.daily_rate_bp), 0);
  const miner_micro = machines.reduce((sum, m) => sum + daysCompleteBy(m, until) * m.daily_output_micro, 0);
  return { pool_micro, miner_micro, total_micro: pool_micro + miner_micro };
}
