/** Orders' entries (the first tick after acceptance, decision 123) stored by the hub, and the orders still waiting for theirs. */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { orders } from "../../db/schema";
import type { Tick } from "./settlement";

/**
 * Stores orders' entries (the first tick after each was accepted). The orders of one beat share
 * its tick, so it is one statement per tick, over the orders' ids, each looked up by its primary
 * key. Orders no longer open, or with an entry already, are left as they are.
 */
export async function writeEntries(db: Db, entries: readonly { id: number; tick: Tick }[]): Promise<void> {
  const byTick = new Map<number, { tick: Tick; ids: number[] }>();
  for (const e of entries) {
    const group = byTick.get(e.tick.ts_ms) ?? { tick: e.tick, ids: [] };
    group.ids.push(e.id);
    byTick.set(e.tick.ts_ms, group);
  }
  for (const { tick, ids } of byTick.values()) {
    for (let i = 0; i < ids.length; i += 1_000) {
      await db.run(entriesUpdate(tick, ids.slice(i, i + 1_000)));
    }
  }
}

/**
 * One tick's entries. `+status`: the unary plus keeps SQLite off the status index, which it would
 * otherwise walk (every open order) once per id; by the primary key each order is one lookup.
 * (tests/api/trades/query-plans.test.ts holds the plan.)
 */
export function entriesUpdate(tick: Tick, ids: readonly number[]) {
  return sql`UPDATE orders SET entry_price_e8 = ${tick.price_e8}, entry_tick_ts_ms = ${tick.ts_ms}
    WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)})) AND +status = 'open' AND entry_price_e8 IS NULL`;
}

/** A symbol's open orders still without an entry (a restarted hub's waiting list). */
export async function ordersAwaitingEntry(db: Db, symbol: string): Promise<{ id: number; user_id: number; accepted_at_ms: number }[]> {
  return db
    .select({ id: orders.id, user_id: orders.user_id, accepted_at_ms: orders.created_at_ms })
    .from(orders)
    .where(and(eq(orders.status, "open"), eq(orders.symbol, symbol), isNull(orders.entry_price_e8)));
}
