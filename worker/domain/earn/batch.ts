import type { SQL } from "drizzle-orm";
import { sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { d1Statements, type Db } from "../../db/client";
import { classifyMoneyError, transferStatements, type MoneyFailure, type Transfer } from "../ledger/transfer";

/**
 * One D1 batch for an earn change: the guard, the row changes and the transfers, all or none.
 * Refusals by the database's rules come back as named statuses (see ledger/transfer.ts).
 */
export async function commitEarn(db: Db, items: (SQL | BatchItem<"sqlite">)[], transfers: Transfer[], now_ms: number): Promise<{ status: "ok" } | { status: MoneyFailure }> {
  const statements = [...items, ...transfers.flatMap((t) => transferStatements(t, now_ms))];
  try {
    await db.$client.batch(d1Statements(db, statements));
    return { status: "ok" };
  } catch (err) {
    const failure = classifyMoneyError(err);
    if (failure) return { status: failure };
    throw err;
  }
}

/**
 * The guard of an earn state change, first in its batch: a transition record whose entity id
 * is found only while `where` holds for the row, so a stale or concurrent change fails the
 * NOT NULL (or the once-per-from-state UNIQUE) and rolls back everything with it. A plain
 * conditional UPDATE would instead update nothing and let the batch's transfers through.
 */
export function earnGuard(entity: "pool_order" | "miner_machine", id: number, where: SQL, from: string, to: string, actor: { kind: "user" | "system"; id: number | null }, now_ms: number): SQL {
  const table = sql.raw(entity === "pool_order" ? "pool_orders" : "miner_machines");
  return sql`INSERT INTO transitions (entity, entity_id, from_state, to_state, actor_kind, actor_id, reason, created_at_ms)
    VALUES (${entity}, (SELECT id FROM ${table} WHERE id = ${id} AND ${where}), ${from}, ${to}, ${actor.kind}, ${actor.id}, '', ${now_ms})`;
}
