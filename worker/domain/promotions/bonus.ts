/**
 * The arithmetic and eligibility of a recharge bonus, as plain functions: the console shows
 * what each deposit would give with the same function that pays it, and an operator can only
 * pick a deposit, never type an amount.
 */

export type BonusTerms = { percent_bp: number; cap_micro: number };

/**
 * min(credited × percent, cap), rounded down to the micro-unit. BigInt keeps the product exact
 * for any safe integer deposit (credited × 10,000 can pass 2^53).
 */
export function bonusFor(credited_micro: number, terms: BonusTerms): number {
  if (!Number.isSafeInteger(credited_micro) || credited_micro <= 0) return 0;
  const raw = (BigInt(credited_micro) * BigInt(terms.percent_bp)) / 10_000n;
  return raw > BigInt(terms.cap_micro) ? terms.cap_micro : Number(raw);
}

export type PromotionWindow = { min_deposit_micro: number; starts_at_ms: number; ends_at_ms: number };
export type DepositFacts = { user_id: number; status: string; credited_micro: number | null; created_at_ms: number };

/** Why a deposit cannot back a user's bonus, checked in this order; "ok" when it can. */
export type Eligibility = "ok" | "deposit_not_yours" | "deposit_not_approved" | "deposit_outside_period" | "deposit_below_minimum";

/**
 * A deposit qualifies when it is the user's own, approved (money actually credited), made
 * inside the promotion's period, and its credited amount (what the operator verified, not what
 * the user typed) is at least the minimum.
 */
export function eligibility(d: DepositFacts, user_id: number, p: PromotionWindow): Eligibility {
  if (d.user_id !== user_id) return "deposit_not_yours";
  if (d.status !== "approved" || d.credited_micro === null) return "deposit_not_approved";
  if (d.created_at_ms < p.starts_at_ms || d.created_at_ms >= p.ends_at_ms) return "deposit_outside_period";
  if (d.credited_micro < p.min_deposit_micro) return "deposit_below_minimum";
  return "ok";
}

/** Whether bookings are taken now: open, and now inside [starts, ends). */
export function bookable(p: { enabled: number; starts_at_ms: number; ends_at_ms: number }, now_ms: number): "ok" | "promotion_closed" | "promotion_not_started" | "promotion_ended" {
  if (p.enabled !== 1) return "promotion_closed";
  if (now_ms < p.starts_at_ms) return "promotion_not_started";
  if (now_ms >= p.ends_at_ms) return "promotion_ended";
  return "ok";
}
