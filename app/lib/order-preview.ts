/**
 * What the order confirmation shows before the user commits, computed in the browser as the
 * API computes it, with the server's own pure functions (worker/domain/trades/settlement.ts):
 * integers of micro-USDT, rounded down, so the sheet updates as the user types without a
 * request per keystroke.
 */
import { breakEvenWinRateBp, orderFee, winnings } from "../../worker/domain/trades/settlement";

export type OrderPreview = {
  stake_micro: number;
  fee_micro: number;
  /** stake × profit rate, rounded down: what a win adds on top of the returned stake. */
  income_micro: number;
  /** The stake at risk. */
  guarantee_micro: number;
  /** Taken from the available balance now: stake + fee. */
  cost_micro: number;
  break_even_bp: number;
};

export function previewOrder(stake_micro: number, fee_rate_bp: number, profit_rate_bp: number): OrderPreview {
  const fee_micro = orderFee(stake_micro, fee_rate_bp);
  return {
    stake_micro,
    fee_micro,
    income_micro: winnings(stake_micro, profit_rate_bp),
    guarantee_micro: stake_micro,
    cost_micro: stake_micro + fee_micro,
    break_even_bp: breakEvenWinRateBp(stake_micro, fee_micro, profit_rate_bp),
  };
}
