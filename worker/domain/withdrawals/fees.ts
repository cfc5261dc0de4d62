/**
 * Withdrawal fee: a fixed part plus a proportional part in basis points, rounded down (in the
 * user's favour). The user receives amount − fee; it must stay positive, and the amount must
 * reach the channel's minimum. Pure: the form shows exactly what the server will charge.
 */
export type WithdrawalRule = { fee_fixed_micro: number; fee_rate_bp: number; min_amount_micro: number; enabled: boolean };

export type Quote =
  | { status: "ok"; amount_micro: number; fee_micro: number; actual_micro: number }
  | { status: "below_minimum"; min_amount_micro: number }
  | { status: "fee_exceeds_amount" }
  | { status: "channel_disabled" };

export function quoteWithdrawal(rule: WithdrawalRule, amount_micro: number): Quote {
  if (!Number.isSafeInteger(amount_micro) || amount_micro <= 0) throw new Error("quoteWithdrawal: amount must be a positive safe integer");
  if (!rule.enabled) return { status: "channel_disabled" };
  if (amount_micro < rule.min_amount_micro) return { status: "below_minimum", min_amount_micro: rule.min_amount_micro };
  // BigInt: amount × rate can pass 2^53 for large amounts.
  const proportional = Number((BigInt(amount_micro) * BigInt(rule.fee_rate_bp)) / 10_000n);
  const fee_micro = rule.fee_fixed_micro + proportional;
  const actual_micro = amount_micro - fee_micro;
  if (actual_micro <= 0) return { status: "fee_exceeds_amount" };
  return { status: "ok", amount_micro, fee_micro, actual_micro };
}
