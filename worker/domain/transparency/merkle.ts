/**
 * The server's side of the RFC 9162 tree: roots and proofs from stored hashes, and the hashes
 * that appending leaves creates. What is stored is the hash of every COMPLETE subtree (2^level
 * leaves starting at index * 2^level), as tlog-tiles keeps them; every other hash a proof needs
 * sits on the tree's right edge and is computed from those. A proof reads O(log n) hashes, all
 * asked for in one call, so it stays cheap at millions of leaves.
 */
import { EMPTY_ROOT, nodeHash, type Hash } from "./verify";

export type HashId = { level: number; index: number };
export type HashReader = (ids: HashId[]) => Promise<Hash[]>;

/** The largest power of two strictly below n (n >= 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** The complete subtree [lo, hi) as a stored id, or null when the range is not one. */
function completeId(lo: number, hi: number): HashId | null {
  const size = hi - lo;
  if (size <= 0 || (size & (size - 1)) !== 0 || lo % size !== 0) return null;
  return { level: Math.log2(size), index: lo / size };
}

/** A hash to compute: a stored subtree, or the node over two ranges (the right edge). */
type Expr = { id: HashId } | { left: Expr; right: Expr };

/** MTH(D[lo:hi]) as stored hashes: the range is complete, or it ends at the tree's right edge. */
function rangeExpr(lo: number, hi: number): Expr {
  const id = completeId(lo, hi);
  if (id) return { id };
  const k = split(hi - lo);
  return { left: rangeExpr(lo, lo + k), right: rangeExpr(lo + k, hi) };
}

/** Reads every stored hash the expressions need, in one call, and evaluates them. */
async function evaluate(exprs: Expr[], read: HashReader): Promise<Hash[]> {
  const ids = new Map<string, HashId>();
  const collect = (e: Expr): void => {
    if ("id" in e) ids.set(`${e.id.level}/${e.id.index}`, e.id);
    else {
      collect(e.left);
      collect(e.right);
    }
  };
  exprs.forEach(collect);
  const list = [...ids.values()];
  const hashes = list.length ? await read(list) : [];
  const got = new Map(list.map((id, i) => [`${id.level}/${id.index}`, hashes[i]]));
  const value = (e: Expr): Hash => ("id" in e ? got.get(`${e.id.level}/${e.id.index}`)! : nodeHash(value(e.left), value(e.right)));
  return exprs.map(value);
}

export async function treeRoot(tree_size: number, read: HashReader): Promise<Hash> {
  if (tree_size === 0) return EMPTY_ROOT;
  return (await evaluate([rangeExpr(0, tree_size)], read))[0];
}

/** RFC 9162 2.1.3.1 PATH(m, D[n]): the sibling hashes from the leaf up, in the order verifiers use. */
export async function inclusionProof(leaf_index: number, tree_size: number, read: HashReader): Promise<Hash[]> {
  if (leaf_index < 0 || leaf_index >= tree_size) throw new RangeError(`leaf ${leaf_index} is not in a tree of ${tree_size}`);
  const path: Expr[] = [];
  let [lo, hi] = [0, tree_size];
  // Top-down, so each sibling is put in front: the proof lists them bottom-up.
  while (hi - lo > 1) {
    const k = split(hi - lo);
    if (leaf_index - lo < k) {
      path.unshift(rangeExpr(lo + k, hi));
      hi = lo + k;
    } else {
      path.unshift(rangeExpr(lo, lo + k));
      lo = lo + k;
    }
  }
  return evaluate(path, read);
}

/** RFC 9162 2.1.4.1 PROOF(m, D[n]) = SUBPROOF(m, D[n], true). */
export async function consistencyProof(size1: number, size2: number, read: HashReader): Promise<Hash[]> {
  if (size1 < 0 || size2 < size1) throw new RangeError(`no consistency from ${size1} to ${size2}`);
  if (size1 === 0 || size1 === size2) return [];
  const out: Expr[] = [];
  let [m, lo, hi, complete] = [size1, 0, size2, true];
  while (m !== hi - lo) {
    const k = split(hi - lo);
    if (m <= k) {
      out.unshift(rangeExpr(lo + k, hi));
      hi = lo + k;
    } else {
      out.unshift(rangeExpr(lo, lo + k));
      m -= k;
      lo += k;
      complete = false;
    }
  }
  if (!complete) out.unshift(rangeExpr(lo, hi));
  return evaluate(out, read);
}

/**
 * Appending `leaf_hashes` to a tree of `old_size`: every complete-subtree hash that comes into
 * being, leaves first, each level after the one below it. Old hashes needed as left children
 * (the old tree's right edge) are read in one call.
 */
export async function appendHashes(old_size: number, leaf_hashes: Hash[], read: HashReader): Promise<{ id: HashId; hash: Hash }[]> {
  const new_size = old_size + leaf_hashes.length;
  const made = new Map<string, Hash>();
  const out: { id: HashId; hash: Hash }[] = [];
  const key = (l: number, i: number) => `${l}/${i}`;
  leaf_hashes.forEach((h, k) => {
    made.set(key(0, old_size + k), h);
    out.push({ id: { level: 0, index: old_size + k }, hash: h });
  });
  // Which old hashes the new nodes need: at each level, the left child of the first new node.
  const needed: HashId[] = [];
  for (let level = 1; 2 ** level <= new_size; level += 1) {
    const first = Math.floor(old_size / 2 ** level); // the first node at this level that is not complete yet
    const last = Math.floor(new_size / 2 ** level); // one past the last complete node
    // Its left child is old only when it was already complete; a child still growing is made just below.
    if (first < last && (2 * first + 1) * 2 ** (level - 1) <= old_size) needed.push({ level: level - 1, index: 2 * first });
  }
  const old = needed.length ? await read(needed) : [];
  needed.forEach((id, i) => made.set(key(id.level, id.index), old[i]));
  for (let level = 1; 2 ** level <= new_size; level += 1) {
    const first = Math.floor(old_size / 2 ** level);
    const last = Math.floor(new_size / 2 ** level);
    for (let index = first; index < last; index += 1) {
      const hash = nodeHash(made.get(key(level - 1, 2 * index))!, made.get(key(level - 1, 2 * index + 1))!);
      made.set(key(level, index), hash);
      out.push({ id: { level, index }, hash });
    }
  }
  return out;
}
