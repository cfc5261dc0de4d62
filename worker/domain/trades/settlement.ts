/**
 * Settlement of a timed up/down contract: the rules in one place.
 *
 * - Entry price: the first tick after the order was accepted (never one the user could have seen
 *   when deciding), within `MAX_ENTRY_WAIT_MS`; the hub stores it at its next beat, and
 *   settlement finds it in the ticks when it could not. No such tick: the order is void.
 * - Settlement price: the latest tick at or before the delivery time, and after the entry: an
 *   order that saw no price after its entry has nothing to settle on (void).
 * - Up wins if settlement > entry; down wins if settlement < entry; equal is a tie, and a tie
 *   refunds the stake.
 * - If the feed has no tick within `max_staleness_ms` before delivery, the order is void: stake
 *   and fee are refunded, with the reason.
 * - A win pays the stake back plus stake × profit rate (rounded down to the micro-unit).
 *
 * Prices are decimal strings scaled to integers (`price_e8`: price × 10^8) so comparisons are
 * exact; no floating point decides an outcome. Their text form lives in domain/money/units.ts.
 */
// Re-exported so the quote hub and the console keep their import path; the home is units.ts.
/** The version of the rule below; every settled order's leaf in the transparency log names it. */
export const SETTLEMENT_RULE_VERSION = 2;

export type Direction = "up" | "down";
/** A price at a time; `trade_id` is the upstream exchange's id of the trade (absent for the simulation). */
export type Tick = { ts_ms: number; price_e8: number; trade_id?: string };

export type SettlementInput = {
  direction: Direction;
  /** When the order was accepted: its entry is the first tick after this. */
  accepted_at_ms: number;
  /** The entry, when the hub already stored it (null: found here in the ticks). */
  entry: Tick | null;
  stake_micro: number;
  fee_micro: number;
  /** Profit rate in basis points: 8500 = 85 %. */
  profit_rate_bp: number;
  delivery_at_ms: number;
};

export type Outcome =
  | { status: "won"; entry: Tick; settlement: Tick; payout_micro: number; profit_micro: number }
  | { status: "lost"; entry: Tick; settlement: Tick; payout_micro: 0; profit_micro: number }
  | { status: "tie"; entry: Tick; settlement: Tick; payout_micro: number; profit_micro: number }
  | { status: "void"; reason: "no_tick" | "no_entry_tick"; entry: Tick | null; payout_micro: number; profit_micro: 0 };

/** How old the last tick before delivery may be for the order to settle on it. */
export const MAX_STALENESS_MS = 10_000;
/** How long after acceptance the entry tick may come: a feed silent longer voids the order. */
export const MAX_ENTRY_WAIT_MS = 5_000;

/** The first tick after `after_ms` and at or before `until_ms` (ticks in any order). */
export function firstTickAfter(ticks: readonly Tick[], after_ms: number, until_ms: number): Tick | null {
  let best: Tick | null = null;
  for (const t of ticks) if (t.ts_ms > after_ms && t.ts_ms <= until_ms && (!best || t.ts_ms < best.ts_ms)) best = t;
  return best;
}

/** The order's entry: the stored one, else the first tick after acceptance within the wait. */
export function entryOf(order: Pick<SettlementInput, "accepted_at_ms" | "entry" | "delivery_at_ms">, ticks: readonly Tick[]): Tick | null {
  return order.entry ?? firstTickAfter(ticks, order.accepted_at_ms, Math.min(order.delivery_at_ms, order.accepted_at_ms + MAX_ENTRY_WAIT_MS));
}

/** The latest tick at or before `at_ms` (ticks in any order). */
export function tickAtOrBefore(ticks: readonly Tick[], at_ms: number): Tick | null {
  let best: Tick | null = null;
  for (const t of ticks) if (t.ts_ms <= at_ms && (!best || t.ts_ms > best.ts_ms)) best = t;
  return best;
}

export function settle(order: SettlementInput, ticks: readonly Tick[], max_staleness_ms = MAX_STALENESS_MS): Outcome {
  assertOrder(order);
  // Nothing to settle on: the user gets everything back, fee included.
  const refund = order.stake_micro + order.fee_micro;
  const entry = entryOf(order, ticks);
  if (!entry) return { status: "void", reason: "no_entry_tick", entry: null, payout_micro: refund, profit_micro: 0 };
  const tick = tickAtOrBefore(ticks, order.delivery_at_ms);
  if (!tick || tick.ts_ms <= entry.ts_ms || order.delivery_at_ms - tick.ts_ms > max_staleness_ms) return { status: "void", reason: "no_tick", entry, payout_micro: refund, profit_micro: 0 };
  if (tick.price_e8 === entry.price_e8) {
    // 0 - fee, not -fee: a free order's tie is a profit of 0, never -0.
    return { status: "tie", entry, settlement: tick, payout_micro: order.stake_micro, profit_micro: 0 - order.fee_micro };
  }
  const wentUp = tick.price_e8 > entry.price_e8;
  const won = (order.direction === "up") === wentUp;
  if (!won) return { status: "lost", entry, settlement: tick, payout_micro: 0, profit_micro: -(order.stake_micro + order.fee_micro) };
  const gain = winnings(order.stake_micro, order.profit_rate_bp);
  return { status: "won", entry, settlement: tick, payout_micro: order.stake_micro + gain, profit_micro: gain - order.fee_micro };
}

/** The service fee on a stake, rounded down (taken at purchase). */
export function orderFee(stake_micro: number, fee_rate_bp: number): number {
  return Number((BigInt(stake_micro) * BigInt(fee_rate_bp)) / 10_000n);
}

/** stake × rate, rounded down; BigInt so large stakes cannot lose precision. */
export function winnings(stake_micro: number, profit_rate_bp: number): number {
  return Number((BigInt(stake_micro) * BigInt(profit_rate_bp)) / 10_000n);
}

/**
 * The win rate at which buying is worth it on average: a win returns rate × stake, a loss
 * costs the stake, and the fee is paid either way. Ties are ignored (they refund the stake).
 *   p × rate × stake − (1 − p) × stake − fee = 0  →  p = (stake + fee) / (stake × (1 + rate))
 * Returned in basis points, rounded up.
 */
export function breakEvenWinRateBp(stake_micro: number, fee_micro: number, profit_rate_bp: number): number {
  const num = BigInt(stake_micro + fee_micro) * 10_000n * 10_000n;
  const den = BigInt(stake_micro) * BigInt(10_000 + profit_rate_bp);
  return Number((num + den - 1n) / den);
}

function assertOrder(o: SettlementInput) {
  for (const [k, v] of Object.entries({ accepted: o.accepted_at_ms, stake: o.stake_micro, fee: o.fee_micro, rate: o.profit_rate_bp, delivery: o.delivery_at_ms })) {
    if (!Number.isSafeInteger(v) || v < 0) throw new Error(`settle: ${k} must be a non-negative safe integer`);
  }
  // A stored entry is taken as stored (orders placed before this rule kept the tick at acceptance).
  if (o.stake_micro <= 0 || (o.entry !== null && o.entry.price_e8 <= 0)) throw new Error("settle: stake and entry price must be positive");
}
