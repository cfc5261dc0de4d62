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
  const ticks = await db.select().from(order_ticks).where(eq(order_ticks.order_id, id)).orderBy(asc(order_ticks.ts_ms));
  return { order, ticks };
}
