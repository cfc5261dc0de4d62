/** A market as its QuoteHub loads it: the product, its durations and its open exposure, read in one round trip. */
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { orders, product_durations, products } from "../../db/schema";
import type { Exposure } from "./exposure";
import type { ProductWithDurations } from "./products";

/**
 * The open risk of a symbol's orders (see exposure.ts): per side, the stakes and what a win
 * would pay beyond them (stake × rate rounded down per order, as settlement pays it).
 */
function openExposureQuery(db: Db, symbol: string) {
  return db
    .select({ direction: orders.direction, stake_micro: sql<number>`COALESCE(SUM(${orders.stake_micro}), 0)`, payout_micro: sql<number>`COALESCE(SUM(${orders.stake_micro} * ${orders.profit_rate_bp} / 10000), 0)` })
    .from(orders)
    .where(and(eq(orders.status, "open"), eq(orders.symbol, symbol)))
    .groupBy(orders.direction);
}

function exposureOf(rows: readonly { direction: "up" | "down"; stake_micro: number; payout_micro: number }[]): Exposure {
  const side = (d: "up" | "down") => {
    const r = rows.find((x) => x.direction === d);
    return { stake_micro: r?.stake_micro ?? 0, payout_micro: r?.payout_micro ?? 0 };
  };
  return { up: side("up"), down: side("down") };
}

/** A market as its hub needs it: the product, its durations and its open exposure, in one round trip. */
export async function loadMarket(db: Db, symbol: string): Promise<{ product: ProductWithDurations | null; exposure: Exposure }> {
  const [rows, durations, exposure] = await db.batch([
    db.select().from(products).where(eq(products.symbol, symbol)).limit(1),
    db.select({ d: product_durations }).from(product_durations).innerJoin(products, eq(products.id, product_durations.product_id)).where(eq(products.symbol, symbol)).orderBy(asc(product_durations.seconds)),
    openExposureQuery(db, symbol),
  ]);
  return { product: rows[0] ? { ...rows[0], durations: durations.map((r) => r.d) } : null, exposure: exposureOf(exposure) };
}
