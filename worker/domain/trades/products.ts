import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { product_durations, products } from "../../db/schema";
import { auditInsert } from "../audit/log";

export type ProductInput = {
  symbol: string;
  name: string;
  feed_symbol: string;
  start_price_e8: number;
  tick_size_e8: number;
  fee_rate_bp: number;
  quote_tolerance_bp: number;
  trading_hours: string;
  enabled: boolean;
  sort: number;
  durations: { seconds: number; profit_rate_bp: number; min_stake_micro: number; max_stake_micro: number }[];
};

/**
 * Creates or replaces a product and its durations in one batch (audited when an operator does
 * it). Nothing here can touch an order's outcome: products only shape future orders.
 */
export async function saveProduct(db: Db, operator_id: number | null, input: ProductInput, reason: string, now_ms: number) {
  const existing = await db.query.products.findFirst({ where: eq(products.symbol, input.symbol) });
  const values = { ...input, enabled: input.enabled ? 1 : 0 };
  const { durations, ...row } = values;
  const [saved] = existing
    ? await db.update(products).set(row).where(eq(products.id, existing.id)).returning()
    : await db.insert(products).values({ ...row, created_at_ms: now_ms }).returning();
  const statements = [
    db.delete(product_durations).where(eq(product_durations.product_id, saved.id)),
    ...durations.map((d) => db.insert(product_durations).values({ product_id: saved.id, ...d })),
  ];
  if (operator_id !== null) statements.push(auditInsert(db, { operator_id, action: existing ? "product.update" : "product.create", target: input.symbol, reason, data: input }, now_ms) as never);
  await db.batch(statements as [never, ...never[]]);
  return saved;
}
