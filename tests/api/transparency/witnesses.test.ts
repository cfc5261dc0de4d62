/**
 * Witnesses inside workerd (decision 108), in the `api-witnessed` project: three witnesses
 * configured, a quorum of two (tests/api/transparency/witness-keys.ts). The tests play the
 * witnesses with the configured keys, speaking C2SP tlog-witness: they check the log's
 * signature and the consistency proof from the size they last cosigned, answer 409 with their
 * size when the log is wrong about it, and cosign (tlog-cosignature v1) what extends it.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { LogSequencer } from "../../../durable-objects/transparency/log-sequencer";
import { cosign, generateSigningKey, publicKeyOf } from "../../../worker/domain/transparency/note";
import { b64decode, b64encode, checkWitnesses, cosignatureKeyId, equalBytes, hex, leafHash, openNote, parseCheckpoint, verifyConsistency, verifyInclusion } from "../../../worker/domain/transparency/verify";
import type { WitnessFetch, WitnessOutcome } from "../../../worker/domain/transparency/witnesses";
import { logSequencer } from "../../../durable-objects/transparency/log-api";
import { verifyLog } from "../../../scripts/verify-log";
import { call, db, page, testEnv } from "../helpers";
import { fundedUser } from "../money/helpers";
import { TEST_WITNESSES, TEST_WITNESS_QUORUM } from "./witness-keys";

const VKEYS = TEST_WITNESSES.map((w) => w.vkey);
const stub = () => logSequencer(testEnv) as unknown as DurableObjectStub<LogSequencer>;
const drain = () => logSequencer(testEnv).drain();

/** One test witness: its state for this log is the size and root it last cosigned. */
class Witness {
  size = 0;
  root: Uint8Array = new Uint8Array(32);
  mode: "honest" | "down" | "forge" | "hold" = "honest";
  requests: { old: number; proof_lines: number; size: number; status: number }[] = [];
  private release: (() => void)[] = [];
  constructor(
    readonly key: (typeof TEST_WITNESSES)[number],
    private logKey: () => string,
  ) {}

  /** Lets every held request go on. */
  go() {
    for (const r of this.release.splice(0)) r();
  }

  async addCheckpoint(body: string): Promise<Response> {
    if (this.mode === "down") throw new TypeError("connection refused");
    if (this.mode === "hold") await new Promise<void>((r) => this.release.push(r));
    const answer = (status: number, text = "", type = "text/plain") => {
      this.requests.push({ old, proof_lines: proof.length, size: cp?.tree_size ?? -1, status });
      return new Response(text, { status, headers: { "content-type": type } });
    };
    // "old <size>\n", proof lines, a blank line, the signed checkpoint.
    const blank = body.indexOf("\n\n");
    const head = body.slice(0, blank).split("\n");
    const note = body.slice(blank + 2);
    const old = Number(/^old (0|[1-9][0-9]*)$/.exec(head[0])?.[1] ?? NaN);
    const proof = head.slice(1).map(b64decode);
    const opened = openNote(note, this.logKey());
    const cp = opened.status === "ok" ? parseCheckpoint(opened.body) : null;
    if (!Number.isSafeInteger(old) || !cp || opened.status !== "ok") return answer(cp ? 400 : 403);
    if (old > cp.tree_size) return answer(400);
    if (old !== this.size) return answer(409, `${this.size}\n`, "text/x.tlog.size");
    if (old === cp.tree_size ? !equalBytes(this.root, cp.root_hash) : old === 0 ? proof.length > 0 : !verifyConsistency(old, cp.tree_size, proof, this.root, cp.root_hash)) {
      return answer(old === cp.tree_size ? 409 : 422, old === cp.tree_size ? `${this.size}\n` : "", old === cp.tree_size ? "text/x.tlog.size" : "text/plain");
    }
    [this.size, this.root] = [cp.tree_size, cp.root_hash];
    const now_s = Math.floor(Date.now() / 1000);
    if (this.mode === "forge") {
      // The witness's name and key id over a signature by some other key.
      const raw = b64decode(cosign(opened.body, this.key.name, generateSigningKey(), now_s).split(" ")[2]);
      raw.set(cosignatureKeyId(this.key.name, publicKeyOf(this.key.seed)), 0);
      return answer(200, `\u2014 ${this.key.name} ${b64encode(raw)}\n`);
    }
    return answer(200, `${cosign(opened.body, this.key.name, this.key.seed, now_s)}\n`);
  }
}

let logKey = "";
const witnesses = TEST_WITNESSES.map((k) => new Witness(k, () => logKey));

/** The network as the sequencer sees it: each witness at its URL. */
const network: WitnessFetch = async (url, init) => {
  const w = witnesses.find((x) => url === `${x.key.url}/add-checkpoint`);
  if (!w || init.method !== "POST") return new Response("not found", { status: 404 });
  return w.addCheckpoint(String(init.body));
};

/** A witness round in the sequencer, reaching the test's witnesses. */
function round(): Promise<WitnessOutcome[]> {
  return runInDurableObject(stub(), (instance) => {
    instance.witnessFetch = network;
    return instance.witness();
  });
}

const statusOf = (outcomes: WitnessOutcome[]) => Object.fromEntries(outcomes.map((o) => [o.witness, o.status]));

async function servedCheckpoint() {
  return (await call("/api/proof/checkpoint", undefined, { method: "GET" })).data as { note: string; tree_size: number };
}

/** `npm run verify`, run against this Worker: its failing lines. */
async function verifyFailures(opts: { witnesses?: string[]; quorum?: number } = {}) {
  const failed: string[] = [];
  const r = await verifyLog({ fetch: (path, init) => page(path, init), say: (ok, line) => void (ok ? null : failed.push(line)), ...opts });
  expect(r.failures).toBe(failed.length);
  return failed;
}

async function lastTransferOf(user_id: number): Promise<number> {
  const [row] = await db.all<{ id: number }>(sql`SELECT t.id FROM ledger_transfers t JOIN ledger_accounts a ON a.id = t.credit_account_id WHERE a.user_id = ${user_id} ORDER BY t.id DESC LIMIT 1`);
  return row.id;
}

describe("witnesses", () => {
  let A: Awaited<ReturnType<typeof fundedUser>>;
  let firstSize = 0;
  beforeAll(async () => {
    A = await fundedUser("100");
    firstSize = await drain();
    logKey = (await call("/api/proof/key")).data.verifier_key;
  });

  it("the log names its witnesses and quorum; until a quorum cosigns, nothing is the latest, proofs wait, and verify refuses", async () => {
    const key = (await call("/api/proof/key")).data;
    expect(key).toMatchObject({ witnesses: VKEYS, quorum: TEST_WITNESS_QUORUM });
    expect(firstSize).toBeGreaterThan(0);
    expect(await servedCheckpoint()).toMatchObject({ tree_size: 0, note: "" });
    expect((await call("/api/proof/inclusion", { transfer_id: await lastTransferOf(A.id) }, { token: A.token })).data.error).toBe("log_pending");
    // The bucket's checkpoint waits for the witnesses too.
    expect(await testEnv.LOG.get("checkpoint")).toBeNull();
    expect(await verifyFailures()).toContain("no checkpoint has a quorum of witness cosignatures yet");
  });

  it("the public /proof page lists the witnesses and the quorum, and its command line pins them", async () => {
    const res = await page("/proof");
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const v of VKEYS) expect(html).toContain(`--witness ${v}`);
    expect(html).toContain(`--quorum ${TEST_WITNESS_QUORUM}`);
    expect(html.match(/data-testid="proof-witness"/g)?.length).toBe(VKEYS.length);
  });

  it("two witnesses cosign, one is down: the quorum is met, the checkpoint is served with their lines, and verify accepts it", async () => {
    witnesses[2].mode = "down";
    const outcomes = await round();
    expect(statusOf(outcomes)).toEqual({ [TEST_WITNESSES[0].name]: "cosigned", [TEST_WITNESSES[1].name]: "cosigned", [TEST_WITNESSES[2].name]: "unreachable" });
    expect(witnesses[0].requests).toEqual([{ old: 0, proof_lines: 0, size: firstSize, status: 200 }]);

    const served = await servedCheckpoint();
    expect(served.tree_size).toBe(firstSize);
    expect(openNote(served.note, logKey).status).toBe("ok");
    expect(checkWitnesses(served.note, VKEYS, TEST_WITNESS_QUORUM)).toMatchObject({ status: "ok", missing: [{ name: TEST_WITNESSES[2].name, reason: "absent" }] });
    expect(new TextDecoder().decode(await (await testEnv.LOG.get("checkpoint"))!.arrayBuffer())).toBe(served.note);

    // A proof now stands on the witnessed checkpoint.
    const r = await call("/api/proof/inclusion", { transfer_id: await lastTransferOf(A.id) }, { token: A.token });
    expect(r.code, r.msg).toBe(1);
    expect(r.data.checkpoint).toBe(served.note);
    const cp = parseCheckpoint((openNote(r.data.checkpoint, logKey) as { body: string }).body)!;
    expect(verifyInclusion(leafHash(r.data.leaf), r.data.leaf_index, r.data.tree_size, r.data.proof.map(b64decode), cp.root_hash)).toBe(true);
    expect(await verifyFailures()).toEqual([]);
    // Pinned stricter than the log's own setting (all three), the same checkpoint is refused, naming who is missing.
    const strict = await verifyFailures({ witnesses: VKEYS, quorum: 3 });
    expect(strict.join("\n")).toContain(`missing: ${TEST_WITNESSES[2].name} (no cosignature)`);
  });

  it("the next checkpoint comes with a proof from each witness's size; a witness the log lost track of answers 409 and gets one from its size", async () => {
    // The third witness is back, and had cosigned the first checkpoint (its answer was lost).
    [witnesses[2].mode, witnesses[2].size, witnesses[2].root] = ["honest", witnesses[0].size, witnesses[0].root];
    await fundedUser("50");
    const size = await drain();
    expect(size).toBeGreaterThan(firstSize);
    const outcomes = await round();
    expect(Object.values(statusOf(outcomes))).toEqual(["cosigned", "cosigned", "cosigned"]);
    expect(witnesses[0].requests.at(-1)).toMatchObject({ old: firstSize, size, status: 200 });
    expect(witnesses[0].requests.at(-1)!.proof_lines).toBeGreaterThan(0);
    expect(witnesses[2].requests.map((r) => [r.old, r.status])).toEqual([[0, 409], [firstSize, 200]]);
    const served = await servedCheckpoint();
    expect(served.tree_size).toBe(size);
    expect(checkWitnesses(served.note, VKEYS, 3).status).toBe("ok");
    // Every checkpoint in the list carries its own lines; the older one still only two.
    const list = (await call("/api/proof/checkpoints", { row: 100 })).data.list as { tree_size: number; note: string }[];
    expect(checkWitnesses(list.find((k) => k.tree_size === firstSize)!.note, VKEYS, 2).status).toBe("ok");
    expect(checkWitnesses(list.find((k) => k.tree_size === firstSize)!.note, VKEYS, 3).status).toBe("no_quorum");
    expect(await verifyFailures({ witnesses: VKEYS, quorum: 3 })).toEqual([]);
  });

  it("appending never waits for a witness: the alarm appends and signs while every witness holds its answer", async () => {
    for (const w of witnesses) w.mode = "hold";
    await fundedUser("20");
    const before = Number((await db.all<{ n: number }>(sql`SELECT MAX(tree_size) AS n FROM log_checkpoints`))[0].n);
    await logSequencer(testEnv).poke();
    await runInDurableObject(stub(), (instance) => {
      instance.witnessFetch = network;
    });
    expect(await runDurableObjectAlarm(stub())).toBe(true);
    const after = Number((await db.all<{ n: number }>(sql`SELECT MAX(tree_size) AS n FROM log_checkpoints`))[0].n);
    expect(after).toBeGreaterThan(before);
    // The round the alarm started is still waiting on the witnesses; the served checkpoint is the older one.
    expect((await servedCheckpoint()).tree_size).toBe(before);
    // Released from inside the sequencer, as a real answer would arrive there.
    await runInDurableObject(stub(), () => {
      for (const w of witnesses) {
        w.mode = "honest";
        w.go();
      }
    });
    const outcomes = await runInDurableObject(stub(), (instance) => instance.witness());
    expect((await servedCheckpoint()).tree_size).toBe(after);
    expect(outcomes.every((o) => o.tree_size === after)).toBe(true);
    // The alarm's look-again a second later is not this file's business.
    await runInDurableObject(stub(), (_instance, state) => state.storage.deleteAlarm());
  });

  it("a witness that has cosigned a larger tree than the log now has (a rolled-back database) is reported, never given a smaller one", async () => {
    witnesses[1].size = 1_000_000;
    await fundedUser("10");
    const size = await drain();
    const outcomes = await round();
    expect(outcomes.find((o) => o.witness === TEST_WITNESSES[1].name)).toMatchObject({ status: "ahead" });
    expect(witnesses[1].requests.at(-1)).toMatchObject({ size, status: 409 });
    // The other two still make the quorum.
    expect((await servedCheckpoint()).tree_size).toBe(size);
  });

  it("a forged cosignature is not kept; without the quorum the new checkpoint is not served; one planted in the table fails verify, naming the witness", async () => {
    witnesses[0].mode = "forge";
    const before = (await servedCheckpoint()).tree_size;
    await fundedUser("12");
    const size = await drain();
    const outcomes = await round();
    // The second witness is still ahead of the log (the test before): it is not asked again.
    expect(statusOf(outcomes)).toMatchObject({ [TEST_WITNESSES[0].name]: "bad_cosignature", [TEST_WITNESSES[1].name]: "ahead", [TEST_WITNESSES[2].name]: "cosigned" });
    const kept = await db.all<{ witness: string }>(sql`SELECT witness FROM log_cosignatures WHERE tree_size = ${size}`);
    expect(kept.map((k) => k.witness)).toEqual([TEST_WITNESSES[2].name]);
    expect((await servedCheckpoint()).tree_size).toBe(before);

    // Someone with the database plants the forged line: the server counts it, verifiers do not.
    const note = (await db.all<{ note: string }>(sql`SELECT note FROM log_checkpoints WHERE tree_size = ${size}`))[0].note;
    const raw = b64decode(cosign(note.slice(0, note.lastIndexOf("\n\n") + 1), TEST_WITNESSES[0].name, generateSigningKey(), 1_800_000_000).split(" ")[2]);
    raw.set(cosignatureKeyId(TEST_WITNESSES[0].name, publicKeyOf(TEST_WITNESSES[0].seed)), 0);
    const line = `\u2014 ${TEST_WITNESSES[0].name} ${b64encode(raw)}`;
    await db.run(sql`INSERT INTO log_cosignatures (tree_size, witness, key_id, timestamp_s, line, created_at_ms) VALUES (${size}, ${TEST_WITNESSES[0].name}, ${hex(raw.slice(0, 4))}, 1800000000, ${line}, 0)`);
    expect((await servedCheckpoint()).tree_size).toBe(size);
    const failed = await verifyFailures();
    expect(failed.join("\n")).toContain(`missing: ${TEST_WITNESSES[0].name} (cosignature does not verify: forged or for another checkpoint), ${TEST_WITNESSES[1].name} (no cosignature)`);
  });
});
