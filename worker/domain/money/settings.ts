/**
 * The money settings operators keep on the console's money page, each with the value it has
 * before anyone saves it: one module, so no default is written twice. The readers fall back to
 * these (deposits/four-eyes.ts, promotions/four-eyes.ts, binding/waiting.ts,
 * deposits/bank-account.ts, withdrawals/withdrawals.ts), and the demo seed opens the withdrawal
 * channels with the terms below (scripts/seed-demo.ts). (Plain values: the withdrawal rule's
 * type is worker/domain/withdrawals/fees.ts's, checked where they are used.)
 *
 * Where each is stored: the thresholds, the waiting period and the platform's bank account in
 * `app_config` under their keys; withdrawal fees and minimums in `withdrawal_rules`, as terms a
 * second operator opens (decision 121, bounds in worker/domain/terms/bounds.ts); what one operator
 * may credit alone in 24 hours in `solo_credit_limits`, set only by migrations (decision 120).
 */
import { MICRO_PER_USDT } from "./units";

/** Deposits credited at or above this many micro-USDT need a second, different operator. */
export const FOUR_EYES_KEY = "deposits.four_eyes_micro";
export const FOUR_EYES_DEFAULT_MICRO = 10_000 * MICRO_PER_USDT;
/**
 * The highest the threshold can go. One operator may make four eyes stricter (a lower
 * threshold), never looser: raising it would let that operator alone credit larger deposits.
 */
export const FOUR_EYES_MAX_MICRO = FOUR_EYES_DEFAULT_MICRO;

/**
 * Promotion bonuses at or above this many micro-USDT need a second, different operator, the
 * same pattern as deposits: one operator may lower the threshold (stricter), never raise it
 * above the ceiling.
 */
export const PROMOTION_FOUR_EYES_KEY = "promotions.four_eyes_micro";
export const PROMOTION_FOUR_EYES_DEFAULT_MICRO = 500 * MICRO_PER_USDT;
export const PROMOTION_FOUR_EYES_MAX_MICRO = PROMOTION_FOUR_EYES_DEFAULT_MICRO;

/** The allow-list's waiting period, in hours (worker/domain/binding/waiting.ts says why). */
export const BINDING_WAIT_KEY = "binding.wait_hours";
export const BINDING_WAIT_DEFAULT_HOURS = 24;
/** Operators may lengthen the wait, never bring it under the default; and at most to 30 days. */
export const BINDING_WAIT_MIN_HOURS = BINDING_WAIT_DEFAULT_HOURS;
export const BINDING_WAIT_MAX_HOURS = 720;

/**
 * The least a bank-transfer recharge may be while the platform's bank account names none (its own
 * minimum: the lowest crypto minimum would be arbitrary).
 */
export const BANK_MIN_DEFAULT_MICRO = 10 * MICRO_PER_USDT;

/** A withdrawal channel no one has set: closed (terms version 0: it opens with its first terms). */
export const WITHDRAWAL_RULE_UNSET = { fee_fixed_micro: 0, fee_rate_bp: 0, min_amount_micro: 1, enabled: false, terms_version: 0 };

/** The terms the demo seed opens each withdrawal channel with: TRC20 a fixed 1 USDT from 10 USDT, bank 0.5 % from 50 USDT. */
export const SEEDED_WITHDRAWAL_RULES = {
  trc20: { fee_fixed_micro: 1 * MICRO_PER_USDT, fee_rate_bp: 0, min_amount_micro: 10 * MICRO_PER_USDT, enabled: true },
  bank: { fee_fixed_micro: 0, fee_rate_bp: 50, min_amount_micro: 50 * MICRO_PER_USDT, enabled: true },
};
