/**
 * The products (markets): their rows and durations, reading them, and saving them under the
 * terms rules (frozen parameters, the price step, proposals for what needs a second operator).
 */
import { asc, eq, sql } from "drizzle-orm";
import { d1Statements, type Db } from "../../db/client";
import { product_durations, products } from "../../db/schema";
import { marketTermsOutOfBounds, sameMarketTerms, sortedDurations, type MarketTerms, type OutOfBounds } from "../terms/bounds";
import { proposeTerms } from "../terms/proposals";

export type Product = typeof products.$inferSelect;
export type Duration = typeof product_durations.$inferSelect;
export type ProductWithDurations = Product & { durations: Duration[] };

export async function listProducts(db: Db, opts: { only_enabled: boolean }): Promise<ProductWithDurations[]> {
  const [rows, durations] = await db.batch([
    db.select().from(products).where(opts.only_enabled ? eq(products.enabled, 1) : undefined).orderBy(asc(products.sort), asc(products.id)),
    db.select().from(product_durations).orderBy(asc(product_durations.seconds)),
  ]);
  return rows.map((p) => ({ ...p, durations: durations.filter((d) => d.product_id === p.id) }));
}

export async function getProduct(db: Db, id: number): Promise<ProductWithDurations | null> {
  const p = await db.query.products.findFirst({ where: eq(products.id, id) });
  if (!p) return null;
  return { ...p, durations: await db.select().from(product_durations).where(eq(product_durations.product_id, id)).orderBy(asc(product_durations.seconds)) };
}

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

export type SaveResult =
  | { status: "ok"; product: Product }
  /** Saved what an operator may change alone; the terms wait for a second operator (product null: a new market). */
  | { status: "proposed"; product: Product | null; proposal_id: number }
  | { status: "market_params_frozen" }
  | { status: "tick_size_too_large" }
  | OutOfBounds;

/** A new market's exposure limit when none is given (the column's default). */
export const DEFAULT_EXPOSURE_LIMIT_MICRO = 100_000_000_000;

/** The price step must be at most 1/1,000 of the start price, or the simulated walk is a staircase. */
export function tickSizeFits(start_price_e8: number, tick_size_e8: number): boolean {
  return BigInt(tick_size_e8) * 1000n <= BigInt(start_price_e8);
}

/** A market's terms as they stand. */
export function marketTermsOf(p: ProductWithDurations): MarketTerms {
  return { fee_rate_bp: p.fee_rate_bp, exposure_limit_micro: p.exposure_limit_micro, trading_hours: p.trading_hours, durations: sortedDurations(p.durations) };
}

/** The terms a save asks for (an absent exposure limit keeps the current one). */
function termsOfInput(input: ProductInput, current: ProductWithDurations | null): MarketTerms {
  return {
    fee_rate_bp: input.fee_rate_bp,
    exposure_limit_micro: input.exposure_limit_micro ?? current?.exposure_limit_micro ?? DEFAULT_EXPOSURE_LIMIT_MICRO,
    trading_hours: input.trading_hours,
    durations: sortedDurations(input.durations),
  };
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
  'fee_rate_bp', p.fee_rate_bp, 'quote_tolerance_bp', p.quote_tolerance_bp, 'trading_hours', p.trading_hours, 'exposure_limit_micro', p.exposure_limit_micro, 'enabled', p.enabled, 'sort', p.sort, 'terms_version', p.terms_version,
  'durations', (SELECT json_group_array(json_object('seconds', d.seconds, 'profit_rate_bp', d.profit_rate_bp, 'min_stake_micro', d.min_stake_micro, 'max_stake_micro', d.max_stake_micro)) FROM product_durations d WHERE d.product_id = p.id))
  FROM products p WHERE p.symbol = ${symbol})`;

export async function getProductBySymbol(db: Db, symbol: string): Promise<ProductWithDurations | null> {
  const [rows, durations] = await db.batch([
    db.select().from(products).where(eq(products.symbol, symbol)).limit(1),
    db.select({ d: product_durations }).from(product_durations).innerJoin(products, eq(products.id, product_durations.product_id)).where(eq(products.symbol, symbol)),
  ]);
  return rows[0] ? { ...rows[0], durations: sortedDurations(durations.map((r) => r.d)).map((d) => ({ ...d, product_id: rows[0].id, terms_version: rows[0].terms_version })) } : null;
}

/**
 * Saves a market. An operator changes alone only what shapes no promise: name, order, the
 * open/closed switch, the price tolerance and (while no order is open) the feed, price step and
 * start price. The terms (fee, exposure limit, trading hours, durations with their payout rates
 * and stakes) become a proposal that a different operator opens (worker/domain/terms/); until
 * then the old terms stand. A new market is a proposal as a whole. `operator_id` null is the
 * seed or a deployer's script: it writes everything at once, terms with a new version.
 *
 * One batch, with the audit entry (operators) recording the product before and after. The
 * open-orders rule is checked inside the same batch, so an order placed while the operator
 * saves cannot slip in between: the upsert writes an impossible tick size when it would change
 * a frozen field, the table's CHECK refuses it, and nothing of the batch is written. Nothing
 * here can touch an order's outcome: products only shape future orders.
 */
export async function saveProduct(db: Db, operator_id: number | null, input: ProductInput, reason: string, now_ms: number): Promise<SaveResult> {
  if (!tickSizeFits(input.start_price_e8, input.tick_size_e8)) return { status: "tick_size_too_large" };
  const current = await getProductBySymbol(db, input.symbol);
  const terms = termsOfInput(input, current);
  const bounds = marketTermsOutOfBounds({ ...terms, quote_tolerance_bp: input.quote_tolerance_bp });
  if (bounds) return bounds;
  const termsChanged = !current || !sameMarketTerms(marketTermsOf(current), terms);
  if (operator_id !== null && !current) {
    const proposal = await proposeTerms(db, operator_id, { kind: "market", target: input.symbol, terms: { ...input, ...terms }, before: null, base_version: 0 }, reason, now_ms);
    return { status: "proposed", product: null, proposal_id: proposal.id };
  }
  // A script writes the terms now (with a new version); an operator keeps those in force.
  const written = operator_id === null ? terms : marketTermsOf(current!);
  const version = current ? current.terms_version + (operator_id === null && termsChanged ? 1 : 0) : 1;
  const r = await writeProduct(db, operator_id, input, written, version, current === null || version !== current.terms_version, reason, now_ms);
  if (r.status !== "ok" || operator_id === null || !termsChanged) return r;
  const proposal = await proposeTerms(db, operator_id, { kind: "market", target: input.symbol, terms, before: marketTermsOf(current!), base_version: current!.terms_version }, reason, now_ms);
  return { status: "proposed", product: r.product, proposal_id: proposal.id };
}

/**
 * Creates or updates a product by symbol, with `terms` at `version`. `newVersion`: the terms
 * are new (a new product, or a script's change), so the durations are written, and the terms
 * are nobody's (the seed or a script).
 */
async function writeProduct(db: Db, operator_id: number | null, input: ProductInput, terms: MarketTerms, version: number, newVersion: boolean, reason: string, now_ms: number): Promise<SaveResult> {
  const { durations: _durations, exposure_limit_micro: _limit, ...fields } = input;
  const row = { ...fields, fee_rate_bp: terms.fee_rate_bp, trading_hours: terms.trading_hours, exposure_limit_micro: terms.exposure_limit_micro, enabled: input.enabled ? 1 : 0, terms_version: version, ...(newVersion ? { terms_by: null, terms_opened_by: null } : {}) };
  const product_id = sql`(SELECT id FROM products WHERE symbol = ${input.symbol})`;
  // The audit's "after": the product as saved, i.e. its "before" with the submitted fields laid over it.
  const { symbol: _symbol, ...after } = { ...row, durations: terms.durations };
  const audit =
    operator_id === null
      ? []
      : [
          sql`INSERT INTO audit_log (operator_id, action, target, reason, data_json, created_at_ms)
            VALUES (${operator_id}, 'product.update', ${input.symbol}, ${reason},
              json_object('before', json(${productJson(input.symbol)}), 'after', json_patch(COALESCE(${productJson(input.symbol)}, '{}'), json(${JSON.stringify(after)}))), ${now_ms})`,
        ];
  const { symbol: _key, ...changes } = row;
  const write = db
    .insert(products)
    .values({ ...row, created_at_ms: now_ms })
    .onConflictDoUpdate({ target: products.symbol, set: { ...changes, tick_size_e8: sql`CASE WHEN ${frozenChange(input)} THEN 0 ELSE ${input.tick_size_e8} END` } })
    .returning();
  const statements = d1Statements(db, [
    ...audit, // first: it reads the product as it was
    write,
    ...(newVersion ? durationStatements(db, product_id, terms, version) : []),
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

/**
 * A market's durations replaced by those of terms `version` (the product must already be at
 * that version: the database refuses other rows, and deleting the rows of the version in force).
 */
export function durationStatements(db: Db, product_id: ReturnType<typeof sql>, terms: MarketTerms, version: number) {
  return [
    db.delete(product_durations).where(sql`${product_durations.product_id} = ${product_id} AND ${product_durations.terms_version} < ${version}`),
    ...terms.durations.map((d) => db.insert(product_durations).values({ product_id: product_id as unknown as number, ...d, terms_version: version })),
  ];
}

function errorText(err: unknown): string {
  let text = "";
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) text += ` ${String((e as { message?: unknown }).message ?? e)}`;
  return text;
}
