import type { SQL } from "drizzle-orm";
import { sql } from "drizzle-orm";

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
