import { winnings, type Direction } from "./settlement";

/**
 * A market's open risk. For each side: the stakes of its open orders, and what the platform
 * would pay beyond those stakes if that side won (`payout_micro`: the sum of stake × profit
 * rate, rounded down per order, exactly as settlement pays it). Fees are left out: they were
 * taken at purchase and are not at risk (a void refunds them from the fee account).
 */
export type SideExposure = { stake_micro: number; payout_micro: number };
export type Exposure = { up: SideExposure; down: SideExposure };
export type ExposureOrder = { direction: Direction; stake_micro: number; profit_rate_bp: number };

export const NO_EXPOSURE: Exposure = { up: { stake_micro: 0, payout_micro: 0 }, down: { stake_micro: 0, payout_micro: 0 } };

/** `e` with one order added (`sign` 1) or taken away (`sign` -1: settled, or its write failed). */
export function withOrder(e: Exposure, o: ExposureOrder, sign: 1 | -1 = 1): Exposure {
  const side = e[o.direction];
  const next = { stake_micro: side.stake_micro + sign * o.stake_micro, payout_micro: side.payout_micro + sign * winnings(o.stake_micro, o.profit_rate_bp) };
  return o.direction === "up" ? { up: next, down: e.down } : { up: e.up, down: next };
}

/** The sum of two exposures (committed orders plus orders still being written). */
export function combine(a: Exposure, b: Exposure): Exposure {
  return {
    up: { stake_micro: a.up.stake_micro + b.up.stake_micro, payout_micro: a.up.payout_micro + b.up.payout_micro },
    down: { stake_micro: a.down.stake_micro + b.down.stake_micro, payout_micro: a.down.payout_micro + b.down.payout_micro },
  };
}

/**
 * What the platform loses in the worse of the two outcomes: the winning side's payouts beyond
 * their stakes, less the losing side's stakes (which the platform keeps); never below zero.
 */
export function worstCase(e: Exposure): number {
  return Math.max(0, e.up.payout_micro - e.down.stake_micro, e.down.payout_micro - e.up.stake_micro);
}

/**
 * May this order be taken under `limit_micro`? Refused only when it would push the worst case
 * above the limit: an order that lowers the worst case (the other side, or after an operator
 * lowered the limit) is always welcome, since it reduces the risk.
 */
export function admits(e: Exposure, o: ExposureOrder, limit_micro: number): boolean {
  const after = worstCase(withOrder(e, o));
  return after <= limit_micro || after <= worstCase(e);
}
