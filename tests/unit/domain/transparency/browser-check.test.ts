/**
 * The browser's step list (app/lib/proof/check.ts): each step fails on its own cause, and only a
 * fully checked record moves this browser's "last seen" checkpoint.
 */
import { describe, expect, it } from "vitest";
import { checkRecord, type Inclusion } from "../../../../app/lib/proof/check";
import { appendHashes, consistencyProof, inclusionProof, treeRoot, type HashId } from "../../../../worker/domain/transparency/merkle";
import { checkpointBody, generateSigningKey, publicKeyOf, signNote, verifierKey } from "../../../../worker/domain/transparency/note";
import { b64encode, leafHash, type Hash } from "../../../../worker/domain/transparency/verify";

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
    expect(r.steps.map((s) => [s.step, s.ok])).toEqual([["signature_holds", true], ["leaf_matches", true], ["proof_leads_to_root", true], ["consistent_with_last", true]]);
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
});
