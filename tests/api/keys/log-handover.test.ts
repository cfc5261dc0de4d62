/**
 * The log-key handover end to end (decision 136): a log signed with key A hands over to key B in
 * one checkpoint signed by both and naming B; `npm run verify` pinned to A and the browser's
 * check that pinned A both follow it to B. A key that appears without a handover is refused by
 * both, and the sequencer itself will not sign after a key change it was not told about.
 * Its own workerd (tests/api/keys/*): it swaps the log's keys.
 */
import { runInDurableObject } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { verifyLog } from "../../../scripts/verify-log";
import { checkRecord, trustedKey } from "../../../app/lib/proof/check";
import { generateSigningKey, publicKeyOf, signNote, checkpointBody, verifierKey } from "../../../worker/domain/transparency/note";
import { appendBatch, keyContinuity, readHandovers, type LogKeys } from "../../../worker/domain/transparency/sequencer";
import { handoverTarget, openNote, parseCheckpoint } from "../../../worker/domain/transparency/verify";
import { logSequencer } from "../../../durable-objects/transparency/log-api";
import { call, db, page, seed, testEnv } from "../helpers";
import { fundedUser } from "../money/helpers";

const ORIGIN = "localhost/proofline";
const stub = () => logSequencer(testEnv) as unknown as DurableObjectStub<import("../../../durable-objects/transparency/log-sequencer").LogSequencer>;
const r2 = {
  get: async (path: string) => {
    const o = await testEnv.LOG.get(path);
    return o ? new Uint8Array(await o.arrayBuffer()) : null;
  },
  put: async (path: string, bytes: Uint8Array) => void (await testEnv.LOG.put(path, bytes)),
};

/** The sequencer's keys as they are now (local ones, generated into its storage). */
function keysNow(): Promise<LogKeys> {
  return runInDurableObject(stub(), async (instance) => {
    await instance.drain();
    return (instance as unknown as { keysCache: LogKeys }).keysCache;
  });
}

/** Deploys new secrets into the sequencer: LOG_SIGNING_KEY and LOG_PREVIOUS_SIGNING_KEY. */
function useKeys(keys: LogKeys) {
  return runInDurableObject(stub(), (instance) => {
    const o = instance as unknown as { keysCache: LogKeys; keyContinuous: boolean };
    o.keysCache = keys;
    o.keyContinuous = false;
  });
}

async function verifyFailures(pin?: string) {
  const failed: string[] = [];
  const passed: string[] = [];
  await verifyLog({ fetch: (path, init) => page(path, init), pin, say: (ok, line) => void (ok ? passed : failed).push(line) });
  return { failed, passed };
}

/** The browser's Verify on a transfer, with the key it pinned: which steps failed, and the key it keeps. */
async function browserCheck(pinned: string, token: string, transfer_id: number) {
  const inclusion = (await call("/api/proof/inclusion", { transfer_id }, { token })).data;
  const key = (await call("/api/proof/key")).data;
  const use = trustedKey(pinned, key.verifier_key, key.handovers);
  const r = checkRecord(inclusion, use, {}, null, null);
  return { failed: r.steps.filter((s) => !s.ok).map((s) => s.step), key: use };
}

/** The user's newest transfer (credited to one of their accounts). */
const lastTransfer = async (user_id: number) =>
  (await db.all<{ id: number }>(sql`SELECT t.id FROM ledger_transfers t JOIN ledger_accounts a ON a.id = t.credit_account_id WHERE a.user_id = ${user_id} ORDER BY t.id DESC LIMIT 1`))[0].id;

describe("log-key handover", () => {
  let A: LogKeys;
  let vkeyA = "";
  beforeAll(async () => {
    await seed();
    await fundedUser("100");
    A = await keysNow();
    vkeyA = verifierKey(ORIGIN, publicKeyOf(A.signing_seed));
  });

  it("a rotation: the handover checkpoint is signed by A and B and names B; verify and the browser pinned to A follow it", async () => {
    const B = generateSigningKey();
    const vkeyB = verifierKey(ORIGIN, publicKeyOf(B));
    await useKeys({ ...A, signing_seed: B, previous_seed: A.signing_seed });
    const u = await fundedUser("50");
    await logSequencer(testEnv).drain();

    const [handover] = await db.all<{ note: string; tree_size: number }>(sql`SELECT note, tree_size FROM log_checkpoints ORDER BY tree_size DESC LIMIT 1`);
    const lines = handover.note.split("\n").filter((l) => l.startsWith("\u2014 "));
    expect(lines).toHaveLength(2);
    expect(openNote(handover.note, vkeyA).status).toBe("ok");
    expect(openNote(handover.note, vkeyB).status).toBe("ok");
    expect(handoverTarget((openNote(handover.note, vkeyB) as { body: string }).body)).toBe(vkeyB);
    expect(await readHandovers(r2.get)).toEqual([{ tree_size: handover.tree_size, from: vkeyA, to: vkeyB, note: handover.note }]);

    // After it, checkpoints are B's alone (the previous key may then be removed).
    await fundedUser("20");
    await logSequencer(testEnv).drain();
    const [after] = await db.all<{ note: string }>(sql`SELECT note FROM log_checkpoints ORDER BY tree_size DESC LIMIT 1`);
    expect(after.note.split("\n").filter((l) => l.startsWith("\u2014 "))).toHaveLength(1);
    expect(openNote(after.note, vkeyA).status).toBe("unknown_key");
    await useKeys({ ...A, signing_seed: B, previous_seed: null });
    expect(await keyContinuity(db, { ...A, signing_seed: B })).toBe("current");

    // Published: the new key and the history.
    const key = (await call("/api/proof/key")).data;
    expect(key.verifier_key).toBe(vkeyB);
    expect(key.key_history).toEqual([vkeyA, vkeyB]);

    // npm run verify pinned to A: every checkpoint holds under the key trusted at its point.
    const pinnedA = await verifyFailures(vkeyA);
    expect(pinnedA.failed).toEqual([]);
    expect(pinnedA.passed.some((l) => l.includes(`hands the log over to ${vkeyB}`))).toBe(true);
    expect((await verifyFailures()).failed).toEqual([]);

    // The browser that pinned A follows the handover and keeps B.
    const seen = await browserCheck(vkeyA, u.token, await lastTransfer(u.id));
    expect(seen).toEqual({ failed: [], key: vkeyB });
    A = { ...A, signing_seed: B };
    vkeyA = vkeyB;
  });

  it("a checkpoint signed only by an unknown new key is refused by verify and the browser; the sequencer will not sign one", async () => {
    const C = generateSigningKey();
    const vkeyC = verifierKey(ORIGIN, publicKeyOf(C));
    // The sequencer, given a new key without the previous one, signs nothing.
    await useKeys({ ...A, signing_seed: C, previous_seed: null });
    const u = await fundedUser("10");
    const [before] = await db.all<{ n: number }>(sql`SELECT COUNT(*) AS n FROM log_checkpoints`);
    expect(await logSequencer(testEnv).drain()).toBe(0);
    expect((await db.all<{ n: number }>(sql`SELECT COUNT(*) AS n FROM log_checkpoints`))[0].n).toBe(before.n);

    // Someone holding D1 signs with C anyway (the sequencer's code bypassed).
    await appendBatch(db, r2, { ...A, signing_seed: C }, Date.now());
    expect((await call("/api/proof/key")).data.verifier_key).toBe(vkeyC);
    for (const pin of [vkeyA, undefined]) {
      const r = await verifyFailures(pin);
      expect(r.failed.some((l) => l.includes("not signed by a trusted key"))).toBe(true);
      expect(r.failed.some((l) => l.includes(`the log signs with ${vkeyC}, which no checkpoint signed by a trusted key hands over to`))).toBe(true);
    }
    // The browser pinned to the current key, shown C's checkpoint and told C is the key now: refused.
    const inclusion = (await call("/api/proof/inclusion", { transfer_id: await lastTransfer(u.id) }, { token: u.token })).data;
    expect(inclusion.checkpoint).toContain("\u2014 ");
    const key = trustedKey(vkeyA, vkeyC, (await call("/api/proof/key")).data.handovers);
    expect(key).toBe(vkeyA);
    expect(checkRecord(inclusion, key, {}, null, null).steps.find((s) => s.step === "signature_holds")!.ok).toBe(false);
    // A note signed by A over an old body plus C's own line (no handover line inside): no handover.
    const [old] = await db.all<{ note: string }>(sql`SELECT note FROM log_checkpoints ORDER BY tree_size ASC LIMIT 1`);
    const body = parseCheckpoint(old.note.slice(0, old.note.lastIndexOf("\n\n") + 1))!;
    const forged = old.note + signNote(checkpointBody(ORIGIN, body.tree_size, body.root_hash), ORIGIN, C).split("\n\n")[1];
    expect(trustedKey(vkeyA, vkeyC, [{ tree_size: body.tree_size, note: forged }])).toBe(vkeyA);
  });
});
