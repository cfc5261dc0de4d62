/** An order's row, and a user's orders as the pages read them: the open and settled lists, one order with its ticks, a range for the CSV export. */
import { and, asc, desc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { order_ticks, orders } from "../../db/schema";

export type Order = typeof orders.$inferSelect;

function userOrdersWhere(user_id: number, which: "open" | "settled" | "all", range?: { from_ms: number; to_ms: number }) {
  const status = which === "open" ? eq(orders.status, "open") : which === "settled" ? inArray(orders.status, ["won", "lost", "tie", "void"]) : undefined;
  const within = range ? and(gte(orders.created_at_ms, range.from_ms), lt(orders.created_at_ms, range.to_ms)) : undefined;
  return and(eq(orders.user_id, user_id), status, within);
}

export async function listUserOrders(db: Db, user_id: number, which: "open" | "settled", page: { page_no: number; row: number }) {
  const where = userOrdersWhere(user_id, which);
  const items = await db.select().from(orders).where(where).orderBy(desc(orders.id)).limit(page.row).offset((page.page_no - 1) * page.row);
  const [{ total }] = await db.select({ total: sql<number>`count(*)` }).from(orders).where(where);
  return { items, total };
}

/** The order history's orders placed in [from_ms, to_ms), open and settled, newest first (the CSV export). */
export async function userOrdersBetween(db: Db, user_id: number, range: { from_ms: number; to_ms: number }, max: number): Promise<Order[]> {
  return db.select().from(orders).where(userOrdersWhere(user_id, "all", range)).orderBy(desc(orders.id)).limit(max);
}

export async function getUserOrder(db: Db, user_id: number, id: number) {
  const order = await db.query.orders.findFirst({ where: and(eq(orders.id, id), eq(orders.user_id, user_id)) });
  if (!order) return null;
  const ticks = (await orderTicks(db, [order])).get(order.id) ?? [];
  return { order, ticks };
}

/** One tick of an order's audit: around acceptance and delivery, `entry` and `settlement` the two that decided it. */
export type OrderTick = { ts_ms: number; price_e8: number; role: "entry" | "settlement" | "context"; trade_id: string | null };
/** How `orders.audit_ticks` holds a tick: `[ts_ms, price_e8, role, trade_id | null]`. */
type StoredTick = [number, number, OrderTick["role"], string | null];

/** The `audit_ticks` column of a settlement's ticks (oldest first), as settlement writes it. */
export function auditTicksColumn(audit: readonly { ts_ms: number; price_e8: number; role: OrderTick["role"]; trade_id?: string | null }[]): StoredTick[] {
  return audit.map((a) => [a.ts_ms, a.price_e8, a.role, a.trade_id ?? null]);
}

/**
 * The audit ticks of these orders, oldest first (an open order has none): from each order's
 * `audit_ticks` column, and for orders settled before it existed from their `order_ticks` rows,
 * one query for all of those (decision 169).
 */
export async function orderTicks(db: Db, list: readonly Pick<Order, "id" | "status" | "audit_ticks">[]): Promise<Map<number, OrderTick[]>> {
  const out = new Map<number, OrderTick[]>();
  const older: number[] = [];
  for (const o of list) {
    if (o.audit_ticks !== null) out.set(o.id, (JSON.parse(o.audit_ticks) as StoredTick[]).map(([ts_ms, price_e8, role, trade_id]) => ({ ts_ms, price_e8, role, trade_id })));
    else if (o.status !== "open") older.push(o.id);
  }
  if (older.length === 0) return out;
  const rows = await db
    .select()
    .from(order_ticks)
    .where(sql`${order_ticks.order_id} IN (SELECT value FROM json_each(${JSON.stringify(older)}))`)
    .orderBy(asc(order_ticks.order_id), asc(order_ticks.ts_ms));
  for (const t of rows) {
    const list = out.get(t.order_id) ?? [];
    if (list.length === 0) out.set(t.order_id, list);
    list.push({ ts_ms: t.ts_ms, price_e8: t.price_e8, role: t.role, trade_id: t.trade_id });
  }
  return out;
}
