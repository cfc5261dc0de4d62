/**
 * The simulation's commitments and seeds into the transparency log's inbox (D1 `log_queue`),
 * in one batch. A row already there (a retry after a crash) is left as it was: the inbox's
 * (kind, ref_id) is unique, and the sequencer turns each row's payload into its leaf as is.
 */
import { sql } from "drizzle-orm";
import { d1Statements, type Db } from "../../worker/db/client";
import type { SimLogRow } from "./sim-epochs";

export async function writeSimLog(db: Db, rows: readonly SimLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.$client.batch(d1Statements(db, rows.map((r) => sql`INSERT OR IGNORE INTO log_queue (kind, ref_id, payload, created_at_ms) VALUES (${r.kind}, ${r.ref_id}, ${r.payload}, ${r.created_at_ms})`)));
}

/** The simulation's rows not yet in the log's inbox, and marking them written (Prices). */
export type SimLogSource = { simUnlogged(now: number): SimLogRow[]; simLogged(rows: SimLogRow[]): void };

/**
 * Writes the simulation's new commitments and revealed seeds to the log's inbox; answers
 * whether it wrote any (then the log is to be woken).
 */
export async function logSimRows(sim: SimLogSource, db: Db, now_ms: number): Promise<boolean> {
  const rows = sim.simUnlogged(now_ms);
  if (rows.length === 0) return false;
  await writeSimLog(db, rows);
  sim.simLogged(rows);
  return true;
}
