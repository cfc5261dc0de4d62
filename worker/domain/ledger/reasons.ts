/**
 * Every reason a ledger transfer can carry (`ledger_transfers.code`). Statements show each one
 * by name in every language (locales/<lng>/wallet.json `record.code`), so a new reason starts
 * here, and a test fails until all ten languages have words for it.
 */
export const REASON_CODES = [
  "deposit",
  "withdrawal_lock",
  "withdrawal_release",
  "withdrawal_payout",
  "withdrawal_fee",
  "adjustment_credit",
  "adjustment_debit",
  "trade_stake",
  "trade_fee",
  "trade_loss",
  "trade_stake_return",
  "trade_tie_refund",
  "trade_void_refund",
  "trade_win",
  "trade_fee_refund",
  // Play money for demo deployments (worker/mode.ts), never a real deposit.
  "demo_grant",
  // The liquidity pool (worker/domain/earn/pool.ts) and the cloud miner (worker/domain/earn/miner.ts).
  "pool_lock",
  "pool_reward",
  "pool_return",
  "pool_penalty",
  "miner_purchase",
  "miner_output",
  // A recharge promotion's bonus (worker/domain/promotions/grants.ts).
  "promotion_bonus",
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];

export function isReasonCode(code: string): code is ReasonCode {
  return (REASON_CODES as readonly string[]).includes(code);
}
