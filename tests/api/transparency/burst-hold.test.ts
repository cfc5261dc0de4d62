/**
 * The sequencer's hold while a burst settles (durable-objects/transparency/hold.ts, decision
 * 171): its alarm appends nothing while held and comes back when the hold ends; a release
 * brings the alarm forward, and everything that waited is appended then, in queue order.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { HOLD_ASK_MS, NO_HOLD } from "../../../durable-objects/transparency/hold";
import { logSequencer } from "../../../durable-objects/transparency/log-api";
import type { LogSequencer } from "../../../durable-objects/transparency/log-sequencer";
import { db, testEnv } from "../helpers";

const stub = () => logSequencer(testEnv) as unknown as DurableObjectStub<LogSequencer>;
const leaves = async () => (await db.all<{ n: number }>(sql`SELECT COUNT(*) AS n FROM log_leaves`))[0].n;
const waiting = async () => (await db.all<{ n: number }>(sql`SELECT COUNT(*) AS n FROM log_queue q WHERE NOT EXISTS (SELECT 1 FROM log_leaves l WHERE l.queue_seq = q.seq)`))[0].n;

/** The sequencer as a new object finds itself: no hold, no rest to wait out from an earlier test's. */
const freshHold = () => runInDurableObject(stub(), (instance) => void ((instance as unknown as { held: unknown }).held = NO_HOLD));

describe("the log held for a burst", () => {
  beforeEach(freshHold);

  it("appends nothing while held, and everything once released", async () => {
    await stub().drain();
    await db.run(sql`INSERT INTO log_queue (kind, ref_id, payload, created_at_ms)
      SELECT 'sim_commit', 'hold-' || value, '{"kind":"sim_commit","n":' || value || '}', ${Date.now()} FROM json_each(${JSON.stringify([1, 2, 3, 4, 5])})`);
    const before = await leaves();
    await stub().hold();
    await stub().poke();
    const asked_ms = Date.now();
    // Held: the alarm (run here, or already by itself) appends nothing and comes back at the hold's end.
    await runDurableObjectAlarm(stub());
    expect(await leaves()).toBe(before);
    expect(await waiting()).toBe(5);
    const at = await runInDurableObject(stub(), (_instance, state) => state.storage.getAlarm());
    expect(at).not.toBeNull();
    expect(at!).toBeGreaterThan(Date.now());
    expect(at!).toBeLessThanOrEqual(asked_ms + HOLD_ASK_MS + 1_000);

    await stub().release();
    const next = await runInDurableObject(stub(), (_instance, state) => state.storage.getAlarm());
    // Brought forward (or already run by itself).
    if (next !== null) expect(next).toBeLessThanOrEqual(Date.now() + 1_000);
    await runDurableObjectAlarm(stub());
    expect(await waiting()).toBe(0);
    expect(await leaves()).toBe(before + 5);
    const order = await db.all<{ ref_id: string }>(sql`SELECT ref_id FROM log_leaves WHERE ref_id LIKE 'hold-%' ORDER BY leaf_index`);
    expect(order.map((r) => r.ref_id)).toEqual(["hold-1", "hold-2", "hold-3", "hold-4", "hold-5"]);
  });

  it("a drain (the operators' and the tests' call) does not wait for a hold", async () => {
    await db.run(sql`INSERT INTO log_queue (kind, ref_id, payload, created_at_ms) VALUES ('sim_commit', 'hold-drain', '{"kind":"sim_commit"}', ${Date.now()})`);
    await stub().hold();
    try {
      // Held: an alarm now would append nothing.
      await stub().poke();
      await runDurableObjectAlarm(stub());
      expect(await waiting()).toBe(1);
      await stub().drain();
      expect(await waiting()).toBe(0);
    } finally {
      await stub().release();
    }
  });
});
