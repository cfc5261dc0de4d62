import type { HubConfig } from "../durable-objects/quotes/quote-hub";
import type { Product } from "./domain/trades/orders";
import type { Env } from "./env";

/** The QuoteHub of a product's symbol, started and told its configuration. */
export async function hubFor(env: Env, product: Pick<Product, "symbol" | "feed_symbol" | "start_price_e8" | "tick_size_e8">) {
  const hub = env.QUOTE_HUB.get(env.QUOTE_HUB.idFromName(product.symbol));
  const config: HubConfig = { symbol: product.symbol, feed_symbol: product.feed_symbol, start_price_e8: product.start_price_e8, tick_size_e8: product.tick_size_e8 };
  await hub.ensure(config);
  return hub;
}

/** "BTC-USDT", "btcusdt", "BTC/USDT" all name BTC/USDT. */
export function symbolKey(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9]/g, "");
}
