/**
 * The liquidity pool's arithmetic, in integer micro-USDT and basis points only, shared by the
 * server (what is paid) and the loan page's calculator (what is shown), so both always agree.
 * Rounding is always down and on the platform's side of a single quantity, never split:
 * - reward per day = floor(amount × rate_bp / 10,000), the same every day;
 * - penalty = floor(amount × ratio_bp × remaining_days / 10,000), at most the amount;
 * - what comes back on early redemption = amount − penalty (+ the rewards already credited).
 * Nothing is created or lost: principal + rewards − penalty is exactly what the user receives.
 */
export const DAY_MS = 86_400_000;

/** floor(a × b / c) for non-negative integers, exact beyond 2^53 in the middle. */
export function mulDiv(a: number, b: number, c: number): number {
  return Number((BigInt(a) * BigInt(b)) / BigInt(c));
}

export function poolRewardPerDay(amount_micro: number, rate_bp: number): number {
  return mulDiv(amount_micro, rate_bp, 10_000);
}

export function poolTotalReward(amount_micro: number, rate_bp: number, days: number): number {
  return poolRewardPerDay(amount_micro, rate_bp) * days;
}

/** Day n (1-based) completes at start + n × 24 h; the last one is the maturity. */
export function dayDueAt(started_at_ms: number, n: number): number {
  return started_at_ms + n * DAY_MS;
}

export function maturityAt(started_at_ms: number, days: number): number {
  return dayDueAt(started_at_ms, days);
}

/** Whole days completed at `now_ms`, between 0 and the cycle. */
export function completedDays(started_at_ms: number, days: number, now_ms: number): number {
  if (now_ms <= started_at_ms) return 0;
  return Math.min(days, Math.floor((now_ms - started_at_ms) / DAY_MS));
}

export function poolPenalty(amount_micro: number, ratio_bp: number, remaining_days: number): number {
  return Math.min(amount_micro, mulDiv(amount_micro, ratio_bp * Math.max(0, remaining_days), 10_000));
}

export type PoolTerms = { amount_micro: number; days: number; daily_rate_bp: number; penalty_rate_bp: number };

export type Redemption = {
  completed_days: number;
  remaining_days: number;
  penalty_micro: number;
  /** The principal that returns to available: amount − penalty. */
  returned_micro: number;
  /** Rewards credited for the completed days (kept). */
  rewards_micro: number;
  /** Everything the user ends with from this order: returned + rewards. */
  total_micro: number;
};

/** Redeeming after `completed` whole days: rewards for those days are kept, the rest costs the penalty. */
export function poolRedemption(t: PoolTerms, completed: number): Redemption {
  const completed_days = Math.max(0, Math.min(t.days, completed));
  const remaining_days = t.days - completed_days;
  const penalty_micro = poolPenalty(t.amount_micro, t.penalty_rate_bp, remaining_days);
  const rewards_micro = poolRewardPerDay(t.amount_micro, t.daily_rate_bp) * completed_days;
  const returned_micro = t.amount_micro - penalty_micro;
  return { completed_days, remaining_days, penalty_micro, returned_micro, rewards_micro, total_micro: returned_micro + rewards_micro };
}

/** The calculator's table: redeeming on each day of the cycle, before day 1 completes up to the last. */
export function poolRedemptionTable(t: PoolTerms): Redemption[] {
  return Array.from({ length: t.days }, (_, completed) => poolRedemption(t, completed));
}

export type PoolQuote = { reward_per_day_micro: number; total_reward_micro: number; maturity_at_ms: number; table: Redemption[] };

/** Everything the calculator shows before a purchase confirmed at `now_ms`. */
export function poolQuote(t: PoolTerms, now_ms: number): PoolQuote {
  return {
    reward_per_day_micro: poolRewardPerDay(t.amount_micro, t.daily_rate_bp),
    total_reward_micro: poolTotalReward(t.amount_micro, t.daily_rate_bp, t.days),
    maturity_at_ms: maturityAt(now_ms, t.days),
    table: poolRedemptionTable(t),
  };
}
