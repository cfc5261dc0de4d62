import { eq, sql } from "drizzle-orm";
import { d1Statements, type Db } from "../../db/client";
import { product_durations, products } from "../../db/schema";
import type { Product } from "./orders";

export type ProductInput = {
  symbol: string;
  name: string;
  feed_symbol: string;
  start_price_e8: number;
  tick_size_e8: number;
  fee_rate_bp: number;
  quote_tolerance_bp: number;
  trading_hours: string;
  /** The most the platform may lose on the market's open orders; absent keeps the current one (new markets: the default). */
  exposure_limit_micro?: number;
  enabled: boolean;
  sort: number;
  durations: { seconds: number; profit_rate_bp: number; min_stake_micro: number; max_stake_micro: number }[];
};

export type SaveResult = { status: "ok"; product: Product } | { status: "market_params_frozen" } | { status: "tick_size_too_large" };

/** The price step must be at most 1/1,000 of the start price, or the simulated walk is a staircase. */
export function tickSizeFits(start_price_e8: number, tick_size_e8: number): boolean {
  return BigInt(tick_size_e8) * 1000n <= BigInt(start_price_e8);
}

/**
 * A product's feed, price grid and start price shape the ticks its open orders will settle
 * on, so they are frozen while it has open orders (the operator creates a new market instead).
 * This expression is TRUE when the saved row would change one of them with open orders.
 */
function frozenChange(input: ProductInput) {
  // Qualified by hand: inside the subquery an unqualified "id" would be the order's.
  return sql`((products.feed_symbol <> ${input.feed_symbol} OR products.tick_size_e8 <> ${input.tick_size_e8} OR products.start_price_e8 <> ${input.start_price_e8})
    AND EXISTS (SELECT 1 FROM orders WHERE orders.status = 'open' AND orders.product_id = products.id))`;
}

/** The product and its durations as JSON, read inside the batch (the audit's "before"). */
const productJson = (symbol: string) => sql`(SELECT json_object('name', p.name, 'feed_symbol', p.feed_symbol, 'start_price_e8', p.start_price_e8, 'tick_size_e8', p.tick_size_e8,
  'fee_rate_bp', p.fee_rate_bp, 'quote_tolerance_bp', p.quote_tolerance_bp, 'trading_hours', p.trading_hours, 'exposure_limit_micro', p.exposure_limit_micro, 'enabled', p.enabled, 'sort', p.sort,
  'durations', (SELECT json_group_array(json_object('seconds', d.seconds, 'profit_rate_bp', d.profit_rate_bp, 'min_stake_micro', d.min_stake_micro, 'max_stake_micro', d.max_stake_micro)) FROM product_durations d WHERE d.product_id = p.id))
  FROM products p WHERE p.symbol = ${symbol})`;

/**
 * Creates or replaces a product and its durations in ONE batch (no read before it), with its
 * audit entry (when an operator does it) recording the product before and after. The
 * open-orders rule is checked inside the same batch, so an order placed while the operator
 * saves cannot slip in between: the upsert writes an impossible tick size when it would change
 * a frozen field, the table's CHECK refuses it, and nothing of the batch is written. Nothing
 * here can touch an order's outcome: products only shape future orders.
 */
export async function saveProduct(db: Db, operator_id: number | null, input: ProductInput, reason: string, now_ms: number): Promise<SaveResult> {
  if (!tickSizeFits(input.start_price_e8, input.tick_size_e8)) return { status: "tick_size_too_large" };
  const { durations, exposure_limit_micro, ...fields } = input;
  const row = { ...fields, enabled: input.enabled ? 1 : 0, ...(exposure_limit_micro === undefined ? {} : { exposure_limit_micro }) };
  const product_id = sql`(SELECT id FROM products WHERE symbol = ${input.symbol})`;
  // The audit's "after": the product as saved, i.e. its "before" with the submitted fields laid over it.
  const { symbol: _symbol, ...after } = { ...row, durations };
  const audit =
    operator_id === null
      ? []
      : [
          sql`INSERT INTO audit_log (operator_id, action, target, reason, data_json, created_at_ms)
            VALUES (${operator_id}, CASE WHEN ${product_id} IS NULL THEN 'product.create' ELSE 'product.update' END, ${input.symbol}, ${reason},
              json_object('before', json(${productJson(input.symbol)}), 'after', json_patch(COALESCE(${productJson(input.symbol)}, '{}'), json(${JSON.stringify(after)}))), ${now_ms})`,
        ];
  // Create or update by symbol in one statement (a symbol names one market for good).
  const { symbol: _key, ...changes } = row;
  const write = db
    .insert(products)
    .values({ ...row, created_at_ms: now_ms })
    .onConflictDoUpdate({ target: products.symbol, set: { ...changes, tick_size_e8: sql`CASE WHEN ${frozenChange(input)} THEN 0 ELSE ${input.tick_size_e8} END` } })
    .returning();
  const statements = d1Statements(db, [
    ...audit, // first: it reads the product as it was
    write,
    db.delete(product_durations).where(eq(product_durations.product_id, product_id)),
    ...durations.map((d) => db.insert(product_durations).values({ product_id: product_id as unknown as number, ...d })),
  ]);
  try {
    const results = await db.$client.batch<Product>(statements);
    return { status: "ok", product: results[audit.length].results[0] };
  } catch (err) {
    // The input's prices were checked positive, so only the guard above can fail this CHECK.
    if (errorText(err).includes("products_positive")) return { status: "market_params_frozen" };
    throw err;
  }
}

function errorText(err: unknown): string {
  let text = "";
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) text += ` ${String((e as { message?: unknown }).message ?? e)}`;
  return text;
}
