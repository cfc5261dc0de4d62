/**
 * What an order is before it is written, and the rules it must pass before any money moves
 * (`checkOrder`, a pure function): the hub and `placeOrder` call it, tests/unit/trades holds it.
 */
import type { Wallet } from "../ledger/accounts";
import type { OrderRefusal } from "../limits/limits";
import { requestHash } from "../money/request-hash";
import { orderFee, type Tick } from "./settlement";
import type { Product, Duration, ProductWithDurations } from "./products";
import type { Order } from "./orders";
import { isTradingTime } from "./trading-hours";

/** |entry − quote| within the tolerance (basis points of the quote)? */
export function withinTolerance(quote_e8: number, entry_e8: number, tolerance_bp: number): boolean {
  return BigInt(Math.abs(entry_e8 - quote_e8)) * 10_000n <= BigInt(quote_e8) * BigInt(tolerance_bp);
}

export type PlaceOrder = {
  user_id: number;
  product_id: number;
  direction: "up" | "down";
  stake_micro: number;
  seconds: number;
  quote_price_e8: number;
  request_key: string;
  /** The market's terms version the order sheet showed; absent: the terms in force (API clients, the seed). */
  terms_version?: number;
};

export type PlaceResult =
  | { status: "ok"; order: Order; replayed: boolean }
  | { status: "product_unknown" | "market_closed" | "duration_unknown" | "insufficient_funds" | "idempotency_conflict" | "no_price" | "exposure_limit" }
  | { status: "price_stale" }
  /** The market's terms changed since the sheet was shown: nothing was placed. */
  | { status: "terms_changed"; terms_version: number | null }
  | OrderRefusal
  | { status: "stake_out_of_range"; min_stake_micro: number; max_stake_micro: number }
  | { status: "price_moved"; entry_price_e8: number };

/** An order that passed every check, with everything its write needs. */
export type CheckedOrder = {
  input: PlaceOrder;
  request_hash: string;
  product: Product;
  duration: Duration;
  latest: Tick;
  fee_micro: number;
  now_ms: number;
  /** The feed the ticks came from (orders table `feed`); the hub names it. */
  feed?: string;
  /** Whose money it stakes ("real" when absent; the hub of a demo deployment says "demo"). */
  wallet?: Wallet;
};

export function orderRequestHash(input: PlaceOrder): string {
  return requestHash({ product_id: input.product_id, direction: input.direction, stake_micro: input.stake_micro, seconds: input.seconds, quote_price_e8: input.quote_price_e8 });
}

/** An entry price older than this is not a market price any more: the feed has stalled. */
export const MAX_TICK_AGE_MS = 2_000;

/**
 * The rules an order must pass before any money moves, as a pure function: an enabled
 * product whose terms are the ones the user was shown, inside its trading hours, a duration it offers, a stake in range, a fresh price,
 * and an entry price (the latest tick) within the product's tolerance of the quote the user
 * saw: a moved price is refused, never filled silently.
 */
export function checkOrder(product: ProductWithDurations | null, input: PlaceOrder, latest: Tick | null, now_ms: number): { status: "ok"; order: CheckedOrder } | Exclude<PlaceResult, { status: "ok" }> {
  if (!product || product.id !== input.product_id || product.enabled !== 1) return { status: "product_unknown" };
  // Terms named by the sheet must be the terms in force: a payout or fee changed while the
  // user looked at the sheet is never applied to their order unseen.
  if (input.terms_version !== undefined && input.terms_version !== product.terms_version) return { status: "terms_changed", terms_version: product.terms_version };
  if (!isTradingTime(product.trading_hours, now_ms)) return { status: "market_closed" };
  const duration = product.durations.find((d) => d.seconds === input.seconds);
  if (!duration) return { status: "duration_unknown" };
  if (input.stake_micro < duration.min_stake_micro || input.stake_micro > duration.max_stake_micro) {
    return { status: "stake_out_of_range", min_stake_micro: duration.min_stake_micro, max_stake_micro: duration.max_stake_micro };
  }
  if (!latest) return { status: "no_price" };
  if (now_ms - latest.ts_ms > MAX_TICK_AGE_MS) return { status: "price_stale" };
  if (!withinTolerance(input.quote_price_e8, latest.price_e8, product.quote_tolerance_bp)) return { status: "price_moved", entry_price_e8: latest.price_e8 };
  const { durations: _durations, ...row } = product;
  return { status: "ok", order: { input, request_hash: orderRequestHash(input), product: row, duration, latest, fee_micro: orderFee(input.stake_micro, product.fee_rate_bp), now_ms } };
}
