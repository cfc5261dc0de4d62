/**
 * The browser's step list (app/lib/proof/check.ts): each step fails on its own cause, and only a
 * fully checked record moves this browser's "last seen" checkpoint.
 */
import { describe, expect, it } from "vitest";
import { checkRecord, witnessPolicy, type Inclusion } from "../../../../app/lib/proof/check";
import { appendHashes, consistencyProof, inclusionProof, treeRoot, type HashId } from "../../../../worker/domain/transparency/merkle";
import { checkpointBody, cosign, generateSigningKey, publicKeyOf, signNote, verifierKey, witnessVerifierKey } from "../../../../worker/domain/transparency/note";
import { b64decode, b64encode, cosignatureKeyId, leafHash, type Hash } from "../../../../worker/domain/transparency/verify";

const seed = generateSigningKey();
const KEY = verifierKey("localhost/proofline", publicKeyOf(seed));
const leaves = Array.from({ length: 40 }, (_, i) => JSON.stringify({ id: i, kind: "order", outcome: i % 2 ? "won" : "lost" }));
const store = new Map<string, Hash>();
const read = async (ids: HashId[]) => ids.map((id) => store.get(`${id.level}/${id.index}`)!);

async function inclusionAt(i: number, size: number): Promise<Inclusion> {
  const root = await treeRoot(size, read);
  return { leaf: leaves[i], leaf_index: i, tree_size: size, proof: (await inclusionProof(i, size, read)).map(b64encode), checkpoint: signNote(checkpointBody("localhost/proofline", size, root), "localhost/proofline", seed) };
}

describe("checkRecord", async () => {
  for (const { id, hash } of await appendHashes(0, leaves.map((l) => leafHash(l)), read)) store.set(`${id.level}/${id.index}`, hash);
  const seen20 = { tree_size: 20, root_hash: b64encode(await treeRoot(20, read)) };
  const proof20to40 = (await consistencyProof(20, 40, read)).map(b64encode);

  it("all four steps hold for an honest answer, and the checkpoint becomes the last seen", async () => {
    const r = checkRecord(await inclusionAt(7, 40), KEY, { id: 7, outcome: "won" }, seen20, proof20to40);
    expect(r.steps.map((s) => [s.step, s.ok])).toEqual([["signature_holds", true], ["witnessed", true], ["leaf_matches", true], ["proof_leads_to_root", true], ["consistent_with_last", true]]);
    // A log without witnesses passes that step, and the page says there are none.
    expect(r.steps.find((s) => s.step === "witnessed")!.detail).toBe("none");
    expect(r.accepted?.tree_size).toBe(40);
  });

  it("another key, another value on the page, a wrong proof, or a log that forked each fail their own step", async () => {
    const x = await inclusionAt(7, 40);
    const otherKey = verifierKey("localhost/proofline", publicKeyOf(generateSigningKey()));
    expect(checkRecord(x, otherKey, {}, null, null).steps.find((s) => s.step === "signature_holds")!.ok).toBe(false);
    const page = checkRecord(x, KEY, { outcome: "lost" }, null, null);
    expect(page.steps.find((s) => s.step === "leaf_matches")).toMatchObject({ ok: false, detail: "outcome" });
    expect(page.accepted).toBeNull();
    expect(checkRecord({ ...x, proof: [...x.proof].reverse() }, KEY, {}, null, null).steps.find((s) => s.step === "proof_leads_to_root")!.ok).toBe(false);
    const forked = { tree_size: 20, root_hash: b64encode(new Uint8Array(32)) };
    expect(checkRecord(x, KEY, {}, forked, proof20to40).steps.find((s) => s.step === "consistent_with_last")).toMatchObject({ ok: false, detail: "fork" });
    const newer = { tree_size: 41, root_hash: seen20.root_hash };
    expect(checkRecord(x, KEY, {}, newer, null).steps.find((s) => s.step === "consistent_with_last")).toMatchObject({ ok: false, detail: "older" });
  });

  describe("witnesses", () => {
    const seeds = [generateSigningKey(), generateSigningKey()];
    const names = ["w1.example/w", "w2.example/w"];
    const policy = { witnesses: seeds.map((k, i) => witnessVerifierKey(names[i], publicKeyOf(k))), quorum: 2 };
    const bodyOf = (note: string) => note.slice(0, note.lastIndexOf("\n\n") + 1);
    const cosigned = (x: Inclusion, lines: string[]) => ({ ...x, checkpoint: x.checkpoint + lines.map((l) => `${l}\n`).join("") });
    const step = (r: ReturnType<typeof checkRecord>) => r.steps.find((s) => s.step === "witnessed")!;

    it("a checkpoint with the quorum's cosignatures is accepted", async () => {
      const x = await inclusionAt(7, 40);
      const r = checkRecord(cosigned(x, seeds.map((k, i) => cosign(bodyOf(x.checkpoint), names[i], k, 1_800_000_000))), KEY, {}, seen20, proof20to40, policy);
      expect(step(r)).toMatchObject({ ok: true, detail: "2/2" });
      expect(r.accepted?.tree_size).toBe(40);
    });

    it("one lacking the quorum is refused, naming the missing witness; nothing is accepted", async () => {
      const x = await inclusionAt(7, 40);
      const r = checkRecord(cosigned(x, [cosign(bodyOf(x.checkpoint), names[0], seeds[0], 1_800_000_000)]), KEY, {}, seen20, proof20to40, policy);
      expect(step(r)).toMatchObject({ ok: false, detail: names[1] });
      expect(r.accepted).toBeNull();
      expect(step(checkRecord(x, KEY, {}, seen20, proof20to40, policy))).toMatchObject({ ok: false, detail: names.join(", ") });
    });

    it("a forged cosignature (the witness's name and key id, another key) does not count", async () => {
      const x = await inclusionAt(7, 40);
      const raw = b64decode(cosign(bodyOf(x.checkpoint), names[1], generateSigningKey(), 1_800_000_000).split(" ")[2]);
      raw.set(cosignatureKeyId(names[1], publicKeyOf(seeds[1])), 0);
      const forged = `\u2014 ${names[1]} ${b64encode(raw)}`;
      const r = checkRecord(cosigned(x, [cosign(bodyOf(x.checkpoint), names[0], seeds[0], 1_800_000_000), forged]), KEY, {}, seen20, proof20to40, policy);
      expect(step(r)).toMatchObject({ ok: false, detail: names[1] });
      expect(r.accepted).toBeNull();
    });

    it("the browser keeps the witnesses it met first; a log that drops them is still held to them", () => {
      const none = { witnesses: [], quorum: 0 };
      expect(witnessPolicy(null, policy)).toBe(policy);
      expect(witnessPolicy(policy, none)).toBe(policy);
      expect(witnessPolicy(none, policy)).toBe(policy);
    });
  });
});
