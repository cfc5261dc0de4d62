/**
 * Every table that holds the log's state refuses to lose or change a row (decision 107): the
 * inbox (with the seed commitments and reveals waiting in it), the leaves, the checkpoints, the
 * witnesses' cosignatures and the liabilities snapshots. Each table has rows here, so a DELETE
 * that were allowed would really remove something.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { logSequencer } from "../../../durable-objects/transparency/log-api";
import { call, db, testEnv } from "../helpers";
import { fundedUser, operatorToken } from "../money/helpers";

const LOG_TABLES = ["log_queue", "log_leaves", "log_checkpoints", "log_cosignatures", "liability_snapshots"] as const;

const count = async (table: string) => Number((await db.all<{ n: number }>(sql.raw(`SELECT COUNT(*) AS n FROM ${table}`)))[0].n);

/** The statement's error, or "done" when the database let it through. */
async function attempt(statement: string): Promise<string> {
  return testEnv.DB.prepare(statement)
    .run()
    .then(
      () => "done",
      (e: unknown) => String(e instanceof Error ? e.message : e),
    );
}

describe("the log's tables are append-only", () => {
  beforeAll(async () => {
    await fundedUser("100");
    const size = await logSequencer(testEnv).drain();
    expect((await call("/api/admin/proof/liabilities", {}, { token: await operatorToken() })).code).toBe(1);
    // A sim commitment waiting in the inbox, and a cosignature row (witnesses are another file's).
    await db.run(sql`INSERT INTO log_queue (kind, ref_id, payload, created_at_ms) VALUES ('sim_commit', 'TEST/USDT@0', '{"kind":"sim_commit"}', 0)`);
    await db.run(sql`INSERT INTO log_cosignatures (tree_size, witness, key_id, timestamp_s, line, created_at_ms) VALUES (${size}, 'w.example/w', '00000000', 0, 'x', 0)`);
    for (const table of LOG_TABLES) expect(await count(table), table).toBeGreaterThan(0);
  });

  for (const table of LOG_TABLES) {
    it(`${table}: DELETE is refused and every row stays`, async () => {
      const before = await count(table);
      expect(await attempt(`DELETE FROM ${table}`)).toContain("log_append_only");
      expect(await count(table)).toBe(before);
    });
  }

  it("UPDATE is refused on every one of them too (the inbox and the cosignatures newly)", async () => {
    const edits: Record<(typeof LOG_TABLES)[number], string> = {
      log_queue: "UPDATE log_queue SET payload = 'bent' WHERE kind = 'sim_commit'",
      log_leaves: "UPDATE log_leaves SET leaf = 'x'",
      log_checkpoints: "UPDATE log_checkpoints SET note = 'x'",
      log_cosignatures: "UPDATE log_cosignatures SET line = 'y'",
      liability_snapshots: "UPDATE liability_snapshots SET total_micro = 0",
    };
    for (const table of LOG_TABLES) expect(await attempt(edits[table]), table).toContain("log_append_only");
    const [{ payload }] = await db.all<{ payload: string }>(sql`SELECT payload FROM log_queue WHERE kind = 'sim_commit' AND ref_id = 'TEST/USDT@0'`);
    expect(payload).toBe('{"kind":"sim_commit"}');
  });
});
