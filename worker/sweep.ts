import { getDb } from "./db/client";
import { listProducts } from "./domain/trades/products";
import { overdueSymbols } from "./domain/trades/settlement-writes";
import type { Env } from "./env";
import { hubFor } from "./quotes";

/** Orders this long past delivery and still open are the sweep's business. */
export const SWEEP_GRACE_MS = 60_000;

/** Asks the QuoteHub of every symbol with overdue open orders to settle them now. */
export async function sweepOverdueOrders(env: Env, now_ms = Date.now()) {
  const db = getDb(env.DB);
  const symbols = await overdueSymbols(db, now_ms, SWEEP_GRACE_MS);
  if (symbols.length === 0) return [];
  const products = await listProducts(db, { only_enabled: false });
  const results = [];
  for (const symbol of symbols) {
    const product = products.find((p) => p.symbol === symbol);
    if (!product) continue;
    results.push({ symbol, ...(await (await hubFor(env, product)).settleDue()) });
  }
  return results;
}
