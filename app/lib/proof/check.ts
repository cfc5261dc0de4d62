/**
 * The browser's verification of one record, as plain functions over what the server sent: every
 * verdict is computed here, with worker/domain/transparency/verify.ts (noble only), never taken
 * from the server.
 */
import { b64decode, b64encode, checkWitnesses, followKeys, leafHash, openNote, parseCheckpoint, verifyConsistency, verifyInclusion, type Handover } from "../../../worker/domain/transparency/verify";

export const STEPS = ["signature_holds", "witnessed", "leaf_matches", "proof_leads_to_root", "consistent_with_last"] as const;
export type StepName = (typeof STEPS)[number];
export type Step = { step: StepName; ok: boolean; detail?: string };

export type Inclusion = { leaf: string; leaf_index: number; tree_size: number; proof: string[]; checkpoint: string };
/** The last checkpoint this browser accepted: what the next one must extend. */
export type Seen = { tree_size: number; root_hash: string };
/** Witnesses (their verifier keys) and how many of them must cosign a checkpoint. */
export type WitnessPolicy = { witnesses: string[]; quorum: number };
export const NO_WITNESSES: WitnessPolicy = { witnesses: [], quorum: 0 };

/**
 * The witnesses this browser holds the log to: the ones it met first, like the log's key; a log
 * that named none when this browser first met it is held to the ones it names now. A log that
 * later drops its witnesses still fails here.
 */
export function witnessPolicy(pinned: WitnessPolicy | null, offered: WitnessPolicy): WitnessPolicy {
  return pinned && pinned.quorum > 0 ? pinned : offered;
}

/**
 * The key to check with (decision 136): the one this browser pinned, or the log's current key
 * when a chain of handover checkpoints leads there from it, each signed by the key before. A key
 * no chain reaches is not taken: the pinned one stays, and the signature step fails.
 */
export function trustedKey(pinned: string | null, current: string, handovers: readonly Handover[] = []): string {
  if (!pinned || pinned === current) return current;
  const follow = followKeys(pinned, handovers, current);
  return follow.status === "ok" ? follow.verifier_key : pinned;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Checks a record's inclusion against the key this browser trusts, the values the page shows
 * (`expected`: every key must be in the leaf with that value) and the last checkpoint seen.
 * `consistency` is the server's proof from `seen.tree_size` to this checkpoint's size.
 */
export function checkRecord(
  x: Inclusion,
  verifier_key: string,
  expected: Record<string, unknown>,
  seen: Seen | null,
  consistency: string[] | null,
  policy: WitnessPolicy = NO_WITNESSES,
): { steps: Step[]; accepted: Seen | null } {
  const steps: Step[] = [];
  const opened = openNote(x.checkpoint, verifier_key);
  const cp = opened.status === "ok" ? parseCheckpoint(opened.body) : null;
  steps.push(cp && cp.tree_size === x.tree_size ? { step: "signature_holds", ok: true } : { step: "signature_holds", ok: false, detail: opened.status === "ok" ? "size" : opened.status });
  steps.push(witnessed(x.checkpoint, policy));

  let leaf: Record<string, unknown> | null = null;
  try {
    leaf = JSON.parse(x.leaf) as Record<string, unknown>;
  } catch {
    leaf = null;
  }
  const differs = leaf ? Object.keys(expected).filter((k) => !same(leaf![k], expected[k])) : Object.keys(expected);
  steps.push(differs.length === 0 ? { step: "leaf_matches", ok: true } : { step: "leaf_matches", ok: false, detail: differs.join(", ") });

  let proof: Uint8Array[] | null;
  try {
    proof = x.proof.map(b64decode);
  } catch {
    proof = null;
  }
  steps.push({ step: "proof_leads_to_root", ok: Boolean(cp && proof && verifyInclusion(leafHash(x.leaf), x.leaf_index, x.tree_size, proof, cp.root_hash)) });

  steps.push(consistent(cp, seen, consistency));
  const accepted = cp && steps.every((s) => s.ok) ? { tree_size: cp.tree_size, root_hash: b64encode(cp.root_hash) } : null;
  return { steps, accepted };
}

/** A quorum of the witnesses cosigned the checkpoint; the detail names the missing ones. */
function witnessed(note: string, policy: WitnessPolicy): Step {
  if (policy.quorum === 0 && policy.witnesses.length === 0) return { step: "witnessed", ok: true, detail: "none" };
  const w = checkWitnesses(note, policy.witnesses, policy.quorum);
  if (w.status === "ok") return { step: "witnessed", ok: true, detail: `${w.cosigned.length}/${policy.quorum}` };
  return { step: "witnessed", ok: false, detail: w.status === "bad_format" ? "format" : w.missing.map((m) => m.name).join(", ") };
}

function consistent(cp: { tree_size: number; root_hash: Uint8Array } | null, seen: Seen | null, proof: string[] | null): Step {
  if (!cp) return { step: "consistent_with_last", ok: false, detail: "no checkpoint" };
  if (!seen) return { step: "consistent_with_last", ok: true, detail: "first" };
  if (seen.tree_size > cp.tree_size) return { step: "consistent_with_last", ok: false, detail: "older" };
  try {
    const ok = verifyConsistency(seen.tree_size, cp.tree_size, (proof ?? []).map(b64decode), b64decode(seen.root_hash), cp.root_hash);
    return ok ? { step: "consistent_with_last", ok: true } : { step: "consistent_with_last", ok: false, detail: "fork" };
  } catch {
    return { step: "consistent_with_last", ok: false, detail: "fork" };
  }
}
