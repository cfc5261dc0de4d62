/**
 * The proof-of-liabilities Merkle sum tree: each leaf one account's whole obligation, each node
 * the hash of its children with their sums (so no subtree can hide a negative or shrink the
 * total). Levels are built pairwise; an odd node at the end of a level moves up unchanged, so
 * its path simply has no element at that level. verifySumPath (verify.ts) checks what pathOf
 * gives.
 */
import { b64encode, sumLeafHash, sumNodeHash, type Hash } from "./verify";

export type SumLeaf = { account: string; balance_micro: string; nonce: string };
type Node = { hash: Hash; sum: bigint };
export type SumPathStep = { side: "left" | "right"; hash: string; sum_micro: string };

export type SumTree = { levels: Node[][]; root_hash: string; total_micro: string };

export function buildSumTree(leaves: SumLeaf[]): SumTree {
  if (leaves.length === 0) throw new RangeError("a sum tree needs at least one leaf");
  let level: Node[] = leaves.map((l) => {
    if (!/^(0|[1-9][0-9]*)$/.test(l.balance_micro)) throw new RangeError(`a balance is a non-negative integer: ${l.balance_micro}`);
    return { hash: sumLeafHash(l.account, l.balance_micro, l.nonce), sum: BigInt(l.balance_micro) };
  });
  const levels = [level];
  while (level.length > 1) {
    const up: Node[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const [l, r] = [level[i], level[i + 1]];
      up.push(r ? { hash: sumNodeHash(l.hash, r.hash, l.sum, r.sum), sum: l.sum + r.sum } : l);
    }
    levels.push(up);
    level = up;
  }
  return { levels, root_hash: b64encode(level[0].hash), total_micro: String(level[0].sum) };
}

/** The siblings from leaf `index` up to the root, each with the side it sits on. */
export function pathOf(tree: SumTree, index: number): SumPathStep[] {
  const path: SumPathStep[] = [];
  let i = index;
  for (const level of tree.levels.slice(0, -1)) {
    const sibling = i % 2 === 0 ? i + 1 : i - 1;
    if (sibling < level.length) path.push({ side: i % 2 === 0 ? "right" : "left", hash: b64encode(level[sibling].hash), sum_micro: String(level[sibling].sum) });
    i = Math.floor(i / 2);
  }
  return path;
}
