/** One market and one order for the trade unit tests (plain data, no database). */
import type { PlaceOrder } from "../../../worker/domain/trades/order-check";
import type { ProductWithDurations } from "../../../worker/domain/trades/products";

export const USDT = 1_000_000;

export const product: ProductWithDurations = {
  id: 1,
  symbol: "BTC/USDT",
  name: "Bitcoin",
  feed_symbol: "BTCUSDT",
  start_price_e8: 60_000e8,
  tick_size_e8: 1_000_000,
  fee_rate_bp: 100,
  quote_tolerance_bp: 50,
  trading_hours: "",
  exposure_limit_micro: 100_000 * USDT,
  enabled: 1,
  sort: 0,
  created_at_ms: 0,
  terms_version: 1,
  terms_by: null,
  terms_opened_by: null,
  durations: [{ product_id: 1, seconds: 30, profit_rate_bp: 8500, min_stake_micro: 10 * USDT, max_stake_micro: 1000 * USDT, terms_version: 1 }],
};

export const input: PlaceOrder = { user_id: 7, product_id: 1, direction: "up", stake_micro: 100 * USDT, seconds: 30, quote_price_e8: 60_000e8, request_key: "client:k1" };
