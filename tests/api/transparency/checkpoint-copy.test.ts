/**
 * The bucket's copy of the checkpoint while the sequencer drains a backlog (appendBatch,
 * worker/domain/transparency/sequencer.ts): every batch signs and records its checkpoint, and
 * the bucket's `checkpoint` is written once, by the batch that empties the inbox.
 */
import { runInDurableObject } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { BATCH_LEAVES, type TileStore } from "../../../worker/domain/transparency/sequencer";
import { logSequencer } from "../../../durable-objects/transparency/log-api";
import type { LogSequencer } from "../../../durable-objects/transparency/log-sequencer";
import { db, testEnv } from "../helpers";

const stub = () => logSequencer(testEnv) as unknown as DurableObjectStub<LogSequencer>;
const checkpoints = async () => (await db.all<{ n: number }>(sql`SELECT COUNT(*) AS n FROM log_checkpoints`))[0].n;

describe("a backlog drained in several batches", () => {
  it("records each batch's checkpoint and writes the bucket's copy once, last", async () => {
    // More than two batches of rows waiting (the simulation's kind carries its leaf as payload).
    const rows = BATCH_LEAVES * 2 + 50;
    await db.run(sql`INSERT INTO log_queue (kind, ref_id, payload, created_at_ms)
      SELECT 'sim_commit', 'copy-' || value, '{"kind":"sim_commit","n":' || value || '}', ${Date.now()} FROM json_each(${JSON.stringify(Array.from({ length: rows }, (_, i) => i))})`);
    const before = await checkpoints();
    const puts: string[] = [];
    const size = await runInDurableObject(stub(), async (instance) => {
      const o = instance as unknown as { store(): TileStore };
      const real = o.store.bind(instance);
      o.store = () => {
        const s = real();
        return { get: s.get, put: async (path, bytes) => (puts.push(path), s.put(path, bytes)) };
      };
      try {
        return await instance.drain();
      } finally {
        o.store = real;
      }
    });
    expect(await checkpoints()).toBeGreaterThanOrEqual(before + 3);
    expect(puts.filter((p) => p === "checkpoint")).toEqual(["checkpoint"]);
    expect(puts[puts.length - 1]).toBe("checkpoint");
    const [latest] = await db.all<{ note: string; tree_size: number }>(sql`SELECT note, tree_size FROM log_checkpoints ORDER BY tree_size DESC LIMIT 1`);
    expect(latest.tree_size).toBe(size);
    expect(new TextDecoder().decode(await (await testEnv.LOG.get("checkpoint"))!.arrayBuffer())).toBe(latest.note);
  });
});
