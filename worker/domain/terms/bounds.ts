/**
 * The published maxima of every term an operator can set: the ranges a market's or a withdrawal
 * channel's terms must stay within, whoever proposes and whoever opens them. Pure, shown to users
 * (`/api/index/terms_bounds`) and to operators, and checked both when terms are proposed and
 * when they are opened.
 *
 * Why these: a payout rate below 100 % means staking both sides of a market always loses (one
 * side wins rate × stake, the other loses the stake), so no setting turns the market into a
 * money machine for whoever knows it; fees stay within what a user can judge at a glance.
 */
import { MICRO_PER_USDT } from "../money/units";

const USDT = MICRO_PER_USDT;

export const MARKET_BOUNDS = {
  /** What a win pays beyond the stake, in basis points: 1 % to 95 %. */
  profit_rate_bp: { min: 100, max: 9_500 },
  /** The service fee on the stake: at most 5 %. */
  fee_rate_bp: { min: 0, max: 500 },
  /** The platform's worst case on one market's open orders. */
  exposure_limit_micro: { min: 0, max: 5_000_000 * USDT },
  /** One order's stake. */
  stake_micro: { min: 1 * USDT, max: 1_000_000 * USDT },
  /** How long an order runs (the console asks for at least 5 s; tests run 2 s markets). */
  seconds: { min: 1, max: 86_400 },
  /** How far the price may move from the quote a user saw before the order is refused. */
  quote_tolerance_bp: { min: 0, max: 500 },
  /** Delivery durations one market offers. */
  durations: { min: 1, max: 10 },
} as const;

export const WITHDRAWAL_BOUNDS = {
  fee_fixed_micro: { min: 0, max: 50 * USDT },
  /** The proportional fee: at most 3 %. */
  fee_rate_bp: { min: 0, max: 300 },
  min_amount_micro: { min: 1, max: 1_000 * USDT },
} as const;

export type DurationTerms = { seconds: number; profit_rate_bp: number; min_stake_micro: number; max_stake_micro: number };
/** What a market promises its orders: changed only by a proposal a second operator opens. */
export type MarketTerms = { fee_rate_bp: number; exposure_limit_micro: number; trading_hours: string; durations: DurationTerms[] };
/** What a withdrawal channel charges, and its minimum. */
export type WithdrawalTerms = { fee_fixed_micro: number; fee_rate_bp: number; min_amount_micro: number };

export type OutOfBounds = { status: "out_of_bounds"; field: string; min: number; max: number };

function within(field: string, value: number, b: { min: number; max: number }): OutOfBounds | null {
  return Number.isSafeInteger(value) && value >= b.min && value <= b.max ? null : { status: "out_of_bounds", field, min: b.min, max: b.max };
}

/** The first term outside its published range, or null. */
export function marketTermsOutOfBounds(t: MarketTerms & { quote_tolerance_bp?: number }): OutOfBounds | null {
  const B = MARKET_BOUNDS;
  const count = within("durations", t.durations.length, B.durations);
  if (count) return count;
  for (const d of t.durations) {
    const bad =
      within("seconds", d.seconds, B.seconds) ??
      within("profit_rate_bp", d.profit_rate_bp, B.profit_rate_bp) ??
      within("min_amount", d.min_stake_micro, B.stake_micro) ??
      within("max_amount", d.max_stake_micro, { min: d.min_stake_micro, max: B.stake_micro.max });
    if (bad) return bad;
  }
  return (
    within("fee_rate_bp", t.fee_rate_bp, B.fee_rate_bp) ??
    within("exposure_limit", t.exposure_limit_micro, B.exposure_limit_micro) ??
    (t.quote_tolerance_bp === undefined ? null : within("quote_tolerance_bp", t.quote_tolerance_bp, B.quote_tolerance_bp))
  );
}

export function withdrawalTermsOutOfBounds(t: WithdrawalTerms): OutOfBounds | null {
  const B = WITHDRAWAL_BOUNDS;
  return within("fee_fixed", t.fee_fixed_micro, B.fee_fixed_micro) ?? within("fee_rate_bp", t.fee_rate_bp, B.fee_rate_bp) ?? within("min_amount", t.min_amount_micro, B.min_amount_micro);
}

/** Durations in one order (by seconds), so two lists of the same terms compare equal. */
export function sortedDurations(ds: readonly DurationTerms[]): DurationTerms[] {
  return [...ds].map((d) => ({ seconds: d.seconds, profit_rate_bp: d.profit_rate_bp, min_stake_micro: d.min_stake_micro, max_stake_micro: d.max_stake_micro })).sort((a, b) => a.seconds - b.seconds);
}

export function sameMarketTerms(a: MarketTerms, b: MarketTerms): boolean {
  return a.fee_rate_bp === b.fee_rate_bp && a.exposure_limit_micro === b.exposure_limit_micro && a.trading_hours === b.trading_hours && JSON.stringify(sortedDurations(a.durations)) === JSON.stringify(sortedDurations(b.durations));
}

export function sameWithdrawalTerms(a: WithdrawalTerms, b: WithdrawalTerms): boolean {
  return a.fee_fixed_micro === b.fee_fixed_micro && a.fee_rate_bp === b.fee_rate_bp && a.min_amount_micro === b.min_amount_micro;
}
