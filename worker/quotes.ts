import type { HubConfig } from "../durable-objects/quotes/hub-api";
import type { Product } from "./domain/trades/products";
import type { Env } from "./env";
import type { Db } from "./db/client";
import { products } from "./db/schema";
import { eq } from "drizzle-orm";

type HubProduct = Pick<Product, "symbol" | "feed_symbol" | "start_price_e8" | "tick_size_e8">;

export function hubConfig(product: HubProduct): HubConfig {
  return { symbol: product.symbol, feed_symbol: product.feed_symbol, start_price_e8: product.start_price_e8, tick_size_e8: product.tick_size_e8 };
}

/** Each symbol's hub id per namespace, kept for the isolate's life (a name always maps to the same id). */
const hubIds = new WeakMap<object, Map<string, DurableObjectId>>();

export function hubStub(env: Env, symbol: string) {
  const ids = hubIds.get(env.QUOTE_HUB) ?? new Map<string, DurableObjectId>();
  hubIds.set(env.QUOTE_HUB, ids);
  let id = ids.get(symbol);
  if (!id) {
    id = env.QUOTE_HUB.idFromName(symbol);
    ids.set(symbol, id);
  }
  return env.QUOTE_HUB.get(id);
}

/** The QuoteHub of a product's symbol, started and told its configuration. */
export async function hubFor(env: Env, product: HubProduct) {
  const hub = hubStub(env, product.symbol);
  await hub.ensure(hubConfig(product));
  return hub;
}

/**
 * Which hub serves a product id. A product's id and symbol never change (saves upsert by
 * symbol), so the route is kept for the isolate's life; only the hub decides with the
 * product's current rules. Saves one database read per order.
 */
const routes = new Map<number, HubConfig>();

export async function hubConfigForProduct(db: Db, product_id: number, opts: { fresh?: boolean } = {}): Promise<HubConfig | null> {
  const known = opts.fresh ? undefined : routes.get(product_id);
  if (known) return known;
  const product = await db.query.products.findFirst({ where: eq(products.id, product_id) });
  if (!product) {
    routes.delete(product_id);
    return null;
  }
  const config = hubConfig(product);
  routes.set(product_id, config);
  return config;
}

/** "BTC-USDT", "btcusdt", "BTC/USDT" all name BTC/USDT. */
export function symbolKey(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9]/g, "");
}

/**
 * A session ended: every hub forgets it before the request that ended it answers (decision 106,
 * write-through), so the very next order under it is refused. Every product's hub, enabled or
 * not, because any of them may have placed an order under it.
 */
export async function forgetSessions(env: Env, db: Db, which: { token_hash?: string; user_id?: number }): Promise<void> {
  const rows = await db.selectDistinct({ symbol: products.symbol }).from(products);
  await Promise.all(rows.map((r) => hubStub(env, r.symbol).forgetSessions(which)));
}
