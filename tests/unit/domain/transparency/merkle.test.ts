/**
 * The transparency log's tree, proofs and tiles against published vectors and random trees.
 *
 * Vectors: the eight-leaf tree used by Certificate Transparency implementations since RFC 6962
 * (certificate-transparency-go and transparency-dev/merkle test data): its roots for sizes 1..8,
 * and inclusion and consistency proofs in it. Tile paths: the C2SP tlog-tiles examples.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appendHashes, consistencyProof, inclusionProof, treeRoot, type HashId } from "../../../../worker/domain/transparency/merkle";
import { decodeEntryBundle, encodeEntryBundle, encodeIndex, entriesPath, entryBundlesToWrite, hashTilesToWrite, tilePath, tileReader, tilesForSize } from "../../../../worker/domain/transparency/tiles";
import { EMPTY_ROOT, hex, leafHash, nodeHash, verifyConsistency, verifyInclusion, type Hash } from "../../../../worker/domain/transparency/verify";

const bytes = (h: string) => Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16));
const LEAVES = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map(bytes);
const ROOTS = [
  "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
  "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
  "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
  "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
  "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
  "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
  "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
  "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];

/** A log in memory: the stored complete-subtree hashes, grown through appendHashes. */
class MemoryLog {
  readonly store = new Map<string, Hash>();
  size = 0;
  readonly read = async (ids: HashId[]) => ids.map((id) => {
    const h = this.store.get(`${id.level}/${id.index}`);
    if (!h) throw new Error(`no hash ${id.level}/${id.index}`);
    return h;
  });
  async append(leaves: Uint8Array[]) {
    const made = await appendHashes(this.size, leaves.map((l) => leafHash(l)), this.read);
    for (const { id, hash } of made) this.store.set(`${id.level}/${id.index}`, hash);
    this.size += leaves.length;
    return made;
  }
}

/** MTH straight from RFC 9162 2.1.1, for comparison. */
function naiveRoot(leaves: Uint8Array[]): Hash {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leafHash(leaves[0]);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(naiveRoot(leaves.slice(0, k)), naiveRoot(leaves.slice(k)));
}

const flip = (h: Uint8Array, bit: number) => {
  const c = h.slice();
  c[Math.floor(bit / 8) % c.length] ^= 1 << bit % 8;
  return c;
};

describe("RFC 9162 tree: published vectors", () => {
  it("the roots of the eight-leaf test tree at every size", async () => {
    const log = new MemoryLog();
    for (let n = 1; n <= 8; n += 1) {
      await log.append([LEAVES[n - 1]]);
      expect(hex(await treeRoot(n, log.read))).toBe(ROOTS[n - 1]);
    }
    expect(hex(EMPTY_ROOT)).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("an inclusion proof and consistency proofs of the test tree", async () => {
    const log = new MemoryLog();
    await log.append(LEAVES);
    const proof0 = await inclusionProof(0, 8, log.read);
    expect(proof0.map(hex)).toEqual([
      "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ]);
    expect(verifyInclusion(leafHash(LEAVES[0]), 0, 8, proof0, bytes(ROOTS[7]))).toBe(true);
    const c68 = await consistencyProof(6, 8, log.read);
    expect(c68.map(hex)).toEqual([
      "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ]);
    expect(verifyConsistency(6, 8, c68, bytes(ROOTS[5]), bytes(ROOTS[7]))).toBe(true);
    const c25 = await consistencyProof(2, 5, log.read);
    expect(c25.map(hex)).toEqual(["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e", "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]);
    expect(verifyConsistency(2, 5, c25, bytes(ROOTS[1]), bytes(ROOTS[4]))).toBe(true);
    // Edge cases RFC 9162 defines: the same size needs an empty proof; a proof to a smaller tree is no proof.
    expect(verifyConsistency(8, 8, [], bytes(ROOTS[7]), bytes(ROOTS[7]))).toBe(true);
    expect(verifyConsistency(8, 8, [], bytes(ROOTS[7]), bytes(ROOTS[6]))).toBe(false);
    expect(verifyConsistency(8, 6, c68, bytes(ROOTS[7]), bytes(ROOTS[5]))).toBe(false);
    expect(verifyInclusion(leafHash(LEAVES[0]), 8, 8, proof0, bytes(ROOTS[7]))).toBe(false);
  });
});

describe("RFC 9162 tree: random trees", () => {
  it("grown in random batches, the tree equals the RFC's definition, and every proof verifies", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 70 }), { minLength: 1, maxLength: 12 }), fc.nat(), async (batches, pick) => {
        const log = new MemoryLog();
        const all: Uint8Array[] = [];
        const roots: Hash[] = [];
        for (const b of batches) {
          const leaves = Array.from({ length: b }, (_, k) => new TextEncoder().encode(`leaf ${all.length + k}`));
          await log.append(leaves);
          all.push(...leaves);
          roots[all.length] = await treeRoot(all.length, log.read);
          expect(hex(roots[all.length])).toBe(hex(naiveRoot(all)));
        }
        const n = all.length;
        const i = pick % n;
        const proof = await inclusionProof(i, n, log.read);
        expect(verifyInclusion(leafHash(all[i]), i, n, proof, roots[n])).toBe(true);
        const sizes = Object.keys(roots).map(Number);
        const m = sizes[pick % sizes.length];
        const cproof = await consistencyProof(m, n, log.read);
        expect(verifyConsistency(m, n, cproof, roots[m], roots[n])).toBe(true);
      }),
      { numRuns: 80 },
    );
  });

  it("any flipped bit in a leaf, a proof or a root, or another leaf index, fails", async () => {
    const log = new MemoryLog();
    const all = Array.from({ length: 300 }, (_, k) => new TextEncoder().encode(`leaf ${k}`));
    await log.append(all);
    const root = await treeRoot(300, log.read);
    const root200 = await treeRoot(200, log.read);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 299 }), fc.nat(255), fc.nat(), async (i, bit, which) => {
        const proof = await inclusionProof(i, 300, log.read);
        const leaf = leafHash(all[i]);
        expect(verifyInclusion(flip(leaf, bit), i, 300, proof, root)).toBe(false);
        expect(verifyInclusion(leaf, i, 300, proof, flip(root, bit))).toBe(false);
        const j = which % proof.length;
        expect(verifyInclusion(leaf, i, 300, proof.map((p, k) => (k === j ? flip(p, bit) : p)), root)).toBe(false);
        expect(verifyInclusion(leaf, (i + 1) % 300, 300, proof, root)).toBe(false);
        // (A changed size alone is not caught when the path has the same shape; the signed
        // checkpoint binds size and root together, which is why proofs are checked against one.)
        const c = await consistencyProof(200, 300, log.read);
        const k = which % c.length;
        expect(verifyConsistency(200, 300, c.map((p, x) => (x === k ? flip(p, bit) : p)), root200, root)).toBe(false);
        expect(verifyConsistency(200, 300, c, flip(root200, bit), root)).toBe(false);
      }),
      { numRuns: 60 },
    );
  });
});

describe("C2SP tlog-tiles", () => {
  it("paths as the specification writes them", () => {
    expect(encodeIndex(1234067)).toBe("x001/x234/067");
    expect(encodeIndex(0)).toBe("000");
    expect(tilePath(0, 1234067)).toBe("tile/0/x001/x234/067");
    expect(tilePath(0, 1234067, 8)).toBe("tile/0/x001/x234/067.p/8");
    expect(tilePath(2, 5)).toBe("tile/2/005");
    expect(entriesPath(1234067, 100)).toBe("tile/entries/x001/x234/067.p/100");
    expect(() => tilePath(0, 1, 0)).toThrow();
    expect(() => tilePath(0, 1, 257)).toThrow();
  });

  it("proofs read from tiles equal proofs read from memory; published tiles are never rewritten", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 6 }), fc.nat(), async (batches, pick) => {
        const mem = new MemoryLog();
        const bucket = new Map<string, Uint8Array>();
        const get = async (p: string) => bucket.get(p) ?? null;
        const leaves: Uint8Array[] = [];
        for (const b of batches) {
          const fresh = Array.from({ length: b }, (_, k) => new TextEncoder().encode(`entry ${leaves.length + k}`));
          const old = mem.size;
          const made = await mem.append(fresh);
          const writes = [...(await hashTilesToWrite(old, mem.size, made, get)), ...(await entryBundlesToWrite(old, fresh, get))];
          for (const w of writes) {
            expect(bucket.has(w.path), `${w.path} rewritten`).toBe(false);
            bucket.set(w.path, w.bytes);
          }
          leaves.push(...fresh);
        }
        const n = leaves.length;
        const fromTiles = tileReader(get, n);
        expect(hex(await treeRoot(n, fromTiles))).toBe(hex(await treeRoot(n, mem.read)));
        const i = pick % n;
        expect((await inclusionProof(i, n, fromTiles)).map(hex)).toEqual((await inclusionProof(i, n, mem.read)).map(hex));
        const m = 1 + (pick % n);
        expect((await consistencyProof(m, n, fromTiles)).map(hex)).toEqual((await consistencyProof(m, n, mem.read)).map(hex));
        // Every tile the size has is there, and the entries read back.
        for (const t of tilesForSize(n)) expect(bucket.has(tilePath(t.level, t.index, t.width))).toBe(true);
        const lastBundle = Math.floor((n - 1) / 256);
        const got = decodeEntryBundle(bucket.get(entriesPath(lastBundle, n - lastBundle * 256))!);
        expect(new TextDecoder().decode(got[got.length - 1])).toBe(`entry ${n - 1}`);
      }),
      { numRuns: 40 },
    );
  });

  it("a rewritten tile makes the proofs fail", async () => {
    const mem = new MemoryLog();
    const bucket = new Map<string, Uint8Array>();
    const get = async (p: string) => bucket.get(p) ?? null;
    const leaves = Array.from({ length: 600 }, (_, k) => new TextEncoder().encode(`entry ${k}`));
    const made = await mem.append(leaves);
    for (const w of await hashTilesToWrite(0, 600, made, get)) bucket.set(w.path, w.bytes);
    const root = await treeRoot(600, mem.read);
    const tampered = bucket.get(tilePath(0, 1))!.slice();
    tampered[5] ^= 1;
    bucket.set(tilePath(0, 1), tampered);
    const proof = await inclusionProof(300, 600, tileReader(get, 600));
    expect(verifyInclusion(leafHash(leaves[300]), 300, 600, proof, root)).toBe(false);
  });

  it("entry bundles: uint16 lengths, and nothing truncated passes", () => {
    const entries = [new Uint8Array([0x61]), new Uint8Array(300).fill(7), new Uint8Array(0)];
    const b = encodeEntryBundle(entries);
    expect(hex(b.slice(0, 3))).toBe("000161");
    expect(decodeEntryBundle(b).map(hex)).toEqual(entries.map(hex));
    expect(() => decodeEntryBundle(b.slice(0, b.length - 1 - 2))).toThrow();
    expect(() => encodeEntryBundle([new Uint8Array(65_536)])).toThrow();
  });
});
