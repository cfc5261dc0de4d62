/**
 * Signed notes and checkpoints against the reference example of golang.org/x/mod/sumdb/note
 * (the "PeterNeumann" key and note, which every C2SP signed-note implementation reproduces),
 * canonical JSON for leaves, and the proof-of-liabilities sum path.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkpointBody, generateSigningKey, publicKeyOf, signNote, verifierKey } from "../../../../worker/domain/transparency/note";
import { b64decode, b64encode, canonicalJson, hex, openNote, parseCheckpoint, parseVerifierKey, sumLeafHash, sumNodeHash, verifySumPath } from "../../../../worker/domain/transparency/verify";

const VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const NOTE = `${TEXT}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;
/** The reference private key is 0x01 || the Ed25519 seed. */
const SEED = b64decode(SKEY.split("+").slice(4).join("+")).slice(1);

describe("C2SP signed notes", () => {
  it("reproduce the reference note byte for byte, and open it", () => {
    expect(verifierKey("PeterNeumann", publicKeyOf(SEED))).toBe(VKEY);
    expect(parseVerifierKey(VKEY)).toMatchObject({ name: "PeterNeumann" });
    expect(hex(parseVerifierKey(VKEY)!.key_id)).toBe("c74f20a3");
    expect(signNote(TEXT, "PeterNeumann", SEED)).toBe(NOTE);
    expect(openNote(NOTE, VKEY)).toEqual({ status: "ok", body: TEXT });
  });

  it("refuse a changed body, a changed signature, another key, and malformed notes", () => {
    expect(openNote(NOTE.replace("cryptography", "cryptographY"), VKEY).status).toBe("bad_signature");
    expect(openNote(NOTE.replace("x08go", "x08gp"), VKEY).status).not.toBe("ok");
    const other = verifierKey("PeterNeumann", publicKeyOf(generateSigningKey()));
    expect(openNote(NOTE, other).status).toBe("unknown_key");
    expect(openNote(TEXT, VKEY).status).toBe("bad_format");
    expect(openNote(NOTE.slice(0, -1), VKEY).status).toBe("bad_format");
    // Mangled verifier keys are no keys (the reference's bad-key cases).
    for (const bad of ["PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==", "PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "PeterNeumann+c74f20a3", "PeterNeumann+c74f20a3+!!!!"]) {
      expect(parseVerifierKey(bad), bad).toBeNull();
    }
  });

  it("a checkpoint signed with a fresh key opens and parses; the origin, size and root come back", () => {
    const seed = generateSigningKey();
    const vkey = verifierKey("localhost/proofline", publicKeyOf(seed));
    const root = new Uint8Array(32).fill(9);
    const note = signNote(checkpointBody("localhost/proofline", 1234, root), "localhost/proofline", seed);
    const opened = openNote(note, vkey);
    expect(opened.status).toBe("ok");
    const cp = parseCheckpoint((opened as { body: string }).body)!;
    expect(cp).toMatchObject({ origin: "localhost/proofline", tree_size: 1234 });
    expect(hex(cp.root_hash)).toBe(hex(root));
    expect(parseCheckpoint("localhost/proofline\n01\nAAAA\n")).toBeNull();
    expect(() => checkpointBody("a\nb", 1, root)).toThrow();
  });
});

describe("canonical JSON", () => {
  it("sorts keys at every depth and writes no spaces", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, "x", null, true], c: "é" } })).toBe('{"a":{"c":"é","d":[3,"x",null,true]},"b":1}');
  });
  it("is the same for any key order, and refuses what JSON cannot carry exactly", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null))), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(obj));
        expect(JSON.parse(canonicalJson(obj))).toEqual(JSON.parse(JSON.stringify(obj)));
      }),
    );
    for (const bad of [1.5, NaN, Infinity, 2 ** 53, undefined, () => 1, new Date(0), 10n]) expect(() => canonicalJson({ x: bad })).toThrow(TypeError);
  });
});

describe("proof of liabilities: the sum path", () => {
  // Four accounts by hand: ((a, b), (c, d)).
  const leaves = [
    { account: "a", balance_micro: "5", nonce: "n1" },
    { account: "b", balance_micro: "0", nonce: "n2" },
    { account: "c", balance_micro: "1000000", nonce: "n3" },
    { account: "d", balance_micro: "7", nonce: "n4" },
  ];
  const h = leaves.map((l) => sumLeafHash(l.account, l.balance_micro, l.nonce));
  const ab = sumNodeHash(h[0], h[1], 5n, 0n);
  const cd = sumNodeHash(h[2], h[3], 1000000n, 7n);
  const root = b64encode(sumNodeHash(ab, cd, 5n, 1000007n));
  const pathOfC = [
    { side: "right" as const, hash: b64encode(h[3]), sum_micro: "7" },
    { side: "left" as const, hash: b64encode(ab), sum_micro: "5" },
  ];

  it("leads a leaf to the root and the total", () => {
    expect(verifySumPath(leaves[2], pathOfC, root, "1000012")).toBe(true);
  });

  it("fails on any other balance, nonce, hash, sum, side or total, and on negative or malformed amounts", () => {
    expect(verifySumPath({ ...leaves[2], balance_micro: "999999" }, pathOfC, root, "1000012")).toBe(false);
    expect(verifySumPath({ ...leaves[2], nonce: "n0" }, pathOfC, root, "1000012")).toBe(false);
    expect(verifySumPath(leaves[2], [{ ...pathOfC[0], sum_micro: "8" }, pathOfC[1]], root, "1000012")).toBe(false);
    expect(verifySumPath(leaves[2], [{ ...pathOfC[0], side: "left" }, pathOfC[1]], root, "1000012")).toBe(false);
    expect(verifySumPath(leaves[2], [pathOfC[0], { ...pathOfC[1], hash: b64encode(cd) }], root, "1000012")).toBe(false);
    expect(verifySumPath(leaves[2], pathOfC, root, "1000013")).toBe(false);
    expect(verifySumPath({ ...leaves[2], balance_micro: "-1" }, pathOfC, root, "1000012")).toBe(false);
    expect(verifySumPath(leaves[2], [{ ...pathOfC[0], sum_micro: "1e3" }, pathOfC[1]], root, "1000012")).toBe(false);
    expect(verifySumPath(leaves[2], [{ ...pathOfC[0], hash: "not base64!" }, pathOfC[1]], root, "1000012")).toBe(false);
  });
});

describe("proof of liabilities: the sum tree", () => {
  it("every leaf's path verifies against the root and total, for any number of accounts", async () => {
    const { buildSumTree, pathOf } = await import("../../../../worker/domain/transparency/sum-tree");
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 0n, max: 10n ** 15n }), { minLength: 1, maxLength: 70 }), fc.nat(), (balances, pick) => {
        const leaves = balances.map((b, i) => ({ account: `acct${i}`, balance_micro: String(b), nonce: `n${i}` }));
        const tree = buildSumTree(leaves);
        expect(tree.total_micro).toBe(String(balances.reduce((a, b) => a + b, 0n)));
        const i = pick % leaves.length;
        expect(verifySumPath(leaves[i], pathOf(tree, i), tree.root_hash, tree.total_micro)).toBe(true);
        // Claiming one micro-unit less, or another account's nonce, fails.
        if (balances[i] > 0n) expect(verifySumPath({ ...leaves[i], balance_micro: String(balances[i] - 1n) }, pathOf(tree, i), tree.root_hash, tree.total_micro)).toBe(false);
        expect(verifySumPath({ ...leaves[i], nonce: "other" }, pathOf(tree, i), tree.root_hash, tree.total_micro)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
