/**
 * Everything a verifier needs, and nothing else: the browser's "Verify", `npm run verify` and
 * the tests run this one file. It imports only @noble/hashes and @noble/curves, so anyone can
 * read it whole and run it without trusting our server.
 *
 * - Merkle tree of RFC 9162 (Certificate Transparency 2.0), section 2.1: leaf hash
 *   SHA-256(0x00 || leaf), node hash SHA-256(0x01 || left || right); inclusion and consistency
 *   proofs verified exactly as 2.1.3.2 and 2.1.4.2 say.
 * - Checkpoints (C2SP tlog-checkpoint) in signed notes (C2SP signed-note) with Ed25519 keys.
 * - The proof-of-liabilities sum tree: leaf SHA-256(0x00 || "account:balance_micro:nonce"),
 *   node SHA-256(0x01 || left || right || u64be(left sum) || u64be(right sum)).
 *
 * Sizes and indexes are plain numbers: exact up to 2^53, far past any log we will run.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";

export type Hash = Uint8Array;

const utf8 = (s: string) => new TextEncoder().encode(s);

/** (Its own concat: this file imports nothing of ours, so a verifier can take it alone.) */
function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a[i] ^ b[i];
  return diff === 0;
}

// ------------------------------------------------------------------ base64 and canonical JSON

export function b64encode(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/** Standard base64 with padding; throws on anything else. */
export function b64decode(text: string): Uint8Array {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) throw new TypeError("not standard base64");
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

export const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/**
 * The one text a leaf is: JSON with keys sorted, no spaces. Only what JSON carries exactly:
 * null, booleans, strings, safe integers, arrays and plain objects (amounts are integer strings,
 * prices decimal strings, so no float ever needs a canonical form).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new TypeError(`canonicalJson: ${value} is not a safe integer`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)) {
    const keys = Object.keys(value as object).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  throw new TypeError(`canonicalJson: ${typeof value} cannot be in a leaf`);
}

// ------------------------------------------------------------------ RFC 9162 Merkle tree

export function leafHash(leaf: string | Uint8Array): Hash {
  return sha256(concat(Uint8Array.of(0), typeof leaf === "string" ? utf8(leaf) : leaf));
}

export function nodeHash(left: Hash, right: Hash): Hash {
  return sha256(concat(Uint8Array.of(1), left, right));
}

/** The root of the empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT: Hash = sha256(new Uint8Array(0));

const odd = (n: number) => n % 2 === 1;
const half = (n: number) => Math.floor(n / 2);

/** RFC 9162 2.1.3.2: does `proof` lead from the leaf at `leaf_index` to `root` in a tree of `tree_size`? */
export function verifyInclusion(leaf_hash: Hash, leaf_index: number, tree_size: number, proof: Hash[], root: Hash): boolean {
  if (!Number.isSafeInteger(leaf_index) || !Number.isSafeInteger(tree_size) || leaf_index < 0 || leaf_index >= tree_size) return false;
  let fn = leaf_index;
  let sn = tree_size - 1;
  let r = leaf_hash;
  for (const p of proof) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equalBytes(r, root);
}

const isPowerOfTwo = (n: number) => n > 0 && 2 ** Math.round(Math.log2(n)) === n;

/** RFC 9162 2.1.4.2: is the tree of `size2` with `root2` an append-only extension of the tree of `size1` with `root1`? */
export function verifyConsistency(size1: number, size2: number, proof: Hash[], root1: Hash, root2: Hash): boolean {
  if (!Number.isSafeInteger(size1) || !Number.isSafeInteger(size2) || size1 < 0 || size2 < size1) return false;
  if (size1 === size2) return proof.length === 0 && equalBytes(root1, root2);
  // Every tree extends the empty one.
  if (size1 === 0) return proof.length === 0 && equalBytes(root1, EMPTY_ROOT);
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : [...proof];
  if (path.length === 0) return false;
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return equalBytes(fr, root1) && equalBytes(sr, root2) && sn === 0;
}

// ------------------------------------------------------------------ C2SP signed notes and checkpoints

/** Ed25519 in C2SP signed-note: the algorithm byte before the key. */
const ED25519 = 0x01;

/** The key id: the first 4 bytes of SHA-256(name || "\n" || 0x01 || public key). */
export function keyId(name: string, public_key: Uint8Array): Uint8Array {
  return sha256(concat(utf8(name), utf8("\n"), Uint8Array.of(ED25519), public_key)).slice(0, 4);
}

/** `<name>+<key id hex>+<base64(0x01 || key)>`, checked (the id must match the name and key). */
export function parseVerifierKey(vkey: string): { name: string; key_id: Uint8Array; public_key: Uint8Array } | null {
  // The key's base64 may itself hold "+": split at the first two only.
  const m = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(vkey.trim());
  if (!m || !validName(m[1])) return null;
  let raw: Uint8Array;
  try {
    raw = b64decode(m[3]);
  } catch {
    return null;
  }
  if (raw.length !== 33 || raw[0] !== ED25519) return null;
  const public_key = raw.slice(1);
  const key_id = keyId(m[1], public_key);
  return hex(key_id) === m[2] ? { name: m[1], key_id, public_key } : null;
}

/** A key name: non-empty, no spaces or "+" (C2SP signed-note). */
const validName = (name: string) => name.length > 0 && !/[\s+]/.test(name);

/**
 * Opens a signed note with one verifier key: the body is returned only when a signature line
 * of this key's name and id verifies over it. Lines of other keys are ignored, as C2SP allows.
 */
export function openNote(note: string, verifier_key: string): { status: "ok"; body: string } | { status: "bad_format" | "unknown_key" | "bad_signature" } {
  const key = parseVerifierKey(verifier_key);
  if (!key) return { status: "unknown_key" };
  const split = note.lastIndexOf("\n\n");
  if (split < 0 || !note.endsWith("\n")) return { status: "bad_format" };
  const body = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split("\n");
  if (lines.length === 0 || body.length === 0) return { status: "bad_format" };
  let seen = false;
  for (const line of lines) {
    const m = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/.exec(line);
    if (!m) return { status: "bad_format" };
    if (m[1] !== key.name) continue;
    let sig: Uint8Array;
    try {
      sig = b64decode(m[2]);
    } catch {
      return { status: "bad_format" };
    }
    if (sig.length !== 68 || !equalBytes(sig.slice(0, 4), key.key_id)) continue;
    seen = true;
    if (ed25519.verify(sig.slice(4), utf8(body), key.public_key)) return { status: "ok", body };
  }
  return { status: seen ? "bad_signature" : "unknown_key" };
}

/** C2SP tlog-checkpoint: origin line, decimal tree size, base64 root hash, then optional extension lines. */
export function parseCheckpoint(body: string): { origin: string; tree_size: number; root_hash: Uint8Array } | null {
  const lines = body.split("\n");
  if (lines.length < 4 || lines[lines.length - 1] !== "") return null;
  const [origin, size, root] = lines;
  if (!origin || !/^(0|[1-9][0-9]*)$/.test(size)) return null;
  const tree_size = Number(size);
  if (!Number.isSafeInteger(tree_size)) return null;
  try {
    const root_hash = b64decode(root);
    return root_hash.length === 32 ? { origin, tree_size, root_hash } : null;
  } catch {
    return null;
  }
}

// ------------------------------------------------------------------ proof of liabilities: a Merkle sum tree

const U64_MAX = 2n ** 64n - 1n;

function u64be(n: bigint): Uint8Array {
  if (n < 0n || n > U64_MAX) throw new RangeError("sum out of range");
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n);
  return out;
}

export function sumLeafHash(account: string, balance_micro: string, nonce: string): Hash {
  return sha256(concat(Uint8Array.of(0), utf8(`${account}:${balance_micro}:${nonce}`)));
}

export function sumNodeHash(left_hash: Hash, right_hash: Hash, left_sum_micro: bigint, right_sum_micro: bigint): Hash {
  return sha256(concat(Uint8Array.of(1), left_hash, right_hash, u64be(left_sum_micro), u64be(right_sum_micro)));
}

const DIGITS = /^(0|[1-9][0-9]*)$/;

/**
 * Does the leaf, climbing its path (each element is the sibling, `side` says where the sibling
 * sits), reach `root_hash` with the sum `total_micro`? A negative or malformed amount fails.
 */
export function verifySumPath(
  leaf: { account: string; balance_micro: string; nonce: string },
  path: { side: "left" | "right"; hash: string; sum_micro: string }[],
  root_hash: string,
  total_micro: string,
): boolean {
  try {
    if (!DIGITS.test(leaf.balance_micro) || !DIGITS.test(total_micro)) return false;
    let hash = sumLeafHash(leaf.account, leaf.balance_micro, leaf.nonce);
    let sum = BigInt(leaf.balance_micro);
    for (const p of path) {
      if (!DIGITS.test(p.sum_micro)) return false;
      const sibling = b64decode(p.hash);
      const s = BigInt(p.sum_micro);
      if (sibling.length !== 32) return false;
      hash = p.side === "left" ? sumNodeHash(sibling, hash, s, sum) : p.side === "right" ? sumNodeHash(hash, sibling, sum, s) : (() => { throw new TypeError("side"); })();
      sum += s;
    }
    return sum === BigInt(total_micro) && equalBytes(hash, b64decode(root_hash));
  } catch {
    return false;
  }
}
