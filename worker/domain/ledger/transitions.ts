import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { transitions } from "../../db/schema";

/** The objects whose states are guarded by transition records, and their tables. */
const TABLES = { deposit: "deposits", withdrawal: "withdrawals", adjustment: "adjustments", order: "orders" } as const;
export type Entity = keyof typeof TABLES;

export type TransitionSpec = {
  entity: Entity;
  id: number;
  from: string;
  to: string;
  actor_kind: "user" | "operator" | "system";
  actor_id: number | null;
  reason?: string;
  /** Users may only move their own objects: the row must also belong to this user. */
  owner_user_id?: number;
};

/**
 * The guard of a state change. Put it FIRST in the batch, before the status update: its
 * entity id is found only while the row is in `from` (and belongs to the owner, if given),
 * otherwise it is NULL and the NOT NULL constraint rolls back the whole batch.
 */
export function transitionInsert(db: Db, t: TransitionSpec, now_ms: number) {
  const table = sql.raw(TABLES[t.entity]);
  const owner = t.owner_user_id === undefined ? sql`` : sql` AND user_id = ${t.owner_user_id}`;
  return db.insert(transitions).values({
    entity: t.entity,
    entity_id: sql`(SELECT id FROM ${table} WHERE id = ${t.id} AND status = ${t.from}${owner})` as unknown as number,
    from_state: t.from,
    to_state: t.to,
    actor_kind: t.actor_kind,
    actor_id: t.actor_id,
    reason: t.reason ?? "",
    created_at_ms: now_ms,
  });
}
