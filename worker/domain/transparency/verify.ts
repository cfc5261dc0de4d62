/**
 * Everything a verifier needs, and nothing else: the browser's "Verify", `npm run verify` and
 * the tests run this one file. It imports only @noble/hashes, @noble/curves and the simulated
 * walk it re-runs (worker/domain/quotes/sim-walk.ts, itself only @noble/hashes), so anyone can
 * read it whole and run it without trusting our server.
 *
 * - Merkle tree of RFC 9162 (Certificate Transparency 2.0), section 2.1: leaf hash
 *   SHA-256(0x00 || leaf), node hash SHA-256(0x01 || left || right); inclusion and consistency
 *   proofs verified exactly as 2.1.3.2 and 2.1.4.2 say.
 * - Checkpoints (C2SP tlog-checkpoint) in signed notes (C2SP signed-note) with Ed25519 keys,
 *   and witnesses' cosignatures on them (C2SP tlog-cosignature v1, Ed25519).
 * - The proof-of-liabilities sum tree: leaf SHA-256(0x00 || "account:balance_micro:nonce"),
 *   node SHA-256(0x01 || left || right || u64be(left sum) || u64be(right sum)).
 *
 * - C2SP tlog-tiles entry bundles, so the whole log can be read from its public tiles and its root
 *   recomputed (RFC 9162 2.1.1).
 * - The simulated feed's audit: each hour's ticks recomputed from that hour's revealed seed by the
 *   walk the markets follow (worker/domain/quotes/sim-walk.ts, which imports only @noble/hashes),
 *   so anyone recomputes them exactly.
 *
 * Sizes and indexes are plain numbers: exact up to 2^53, far past any log we will run.
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { SIM_WALK, simPrices } from "../quotes/sim-walk";

export type Hash = Uint8Array;

const utf8 = (s: string) => new TextEncoder().encode(s);

/** (Its own concat: this file imports nothing of ours but the walk, so a verifier can take the two alone.) */
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
  return parseKeyLine(vkey, ED25519, keyId);
}

/**
 * A signed-note verifier key `<name>+<key id hex>+<base64(type || 32-byte key)>` of one key
 * `type`, checked: a valid name, the type, and the id `idOf` gives for that name and key.
 */
function parseKeyLine(vkey: string, type: number, idOf: (name: string, key: Uint8Array) => Uint8Array): { name: string; key_id: Uint8Array; public_key: Uint8Array } | null {
  // The key's base64 may itself hold "+": split at the first two only.
  const m = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(vkey.trim());
  if (!m || !validName(m[1])) return null;
  let raw: Uint8Array;
  try {
    raw = b64decode(m[3]);
  } catch {
    return null;
  }
  if (raw.length !== 33 || raw[0] !== type) return null;
  const public_key = raw.slice(1);
  const key_id = idOf(m[1], public_key);
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

// ------------------------------------------------------------------ log-key handover (decision 136)

/**
 * A checkpoint extension line (C2SP tlog-checkpoint allows lines after the root): the log's next
 * verifier key. A handover checkpoint carries it and is signed by the old key and the new one.
 * The line is inside the signed body, so the old key's signature names the new key: copying an
 * old checkpoint and adding a signature line of one's own hands nothing over.
 */
export const HANDOVER_LINE = "key-handover ";

/** The verifier key a checkpoint body hands over to, or null. */
export function handoverTarget(body: string): string | null {
  const line = body.split("\n").slice(3).find((l) => l.startsWith(HANDOVER_LINE));
  return line ? line.slice(HANDOVER_LINE.length) : null;
}

export type Handover = { tree_size: number; note: string };
export type KeyFollow = { status: "ok"; verifier_key: string; followed: string[] } | { status: "untrusted"; verifier_key: string; reason: string };

/**
 * Whether `note` hands the log over from `trusted` to a new key: it opens under `trusted`, its
 * body names the new key, and it opens under that key too (the new key's holder signed). Answers
 * the new key, or null.
 */
export function followHandover(trusted: string, note: string, origin?: string): string | null {
  const opened = openNote(note, trusted);
  if (opened.status !== "ok") return null;
  const cp = parseCheckpoint(opened.body);
  const next = handoverTarget(opened.body);
  if (!cp || !next || (origin !== undefined && cp.origin !== origin) || next === trusted) return null;
  return openNote(note, next).status === "ok" ? next : null;
}

/**
 * From the key a verifier trusts to the key the log signs with now, through handover
 * checkpoints only (oldest first; ones that do not start from the trusted key are passed over).
 * A current key no chain reaches is "untrusted": a new key is trusted only through a checkpoint
 * signed by a key already trusted.
 */
export function followKeys(trusted: string, handovers: readonly Handover[], current: string, origin?: string): KeyFollow {
  let key = trusted;
  const followed: string[] = [];
  for (const h of [...handovers].sort((a, b) => a.tree_size - b.tree_size)) {
    const next = followHandover(key, h.note, origin);
    if (next) {
      key = next;
      followed.push(next);
    }
  }
  if (key === current) return { status: "ok", verifier_key: key, followed };
  return { status: "untrusted", verifier_key: key, reason: followed.length ? "chain_ends_elsewhere" : "no_handover" };
}

// ------------------------------------------------------------------ C2SP tlog-cosignature: witnesses

/** Ed25519 cosignature/v1 (C2SP tlog-cosignature): the type byte of its key id and verifier key. */
const COSIGNATURE_V1 = 0x04;

/** A witness's key id: the first 4 bytes of SHA-256(name || "\n" || 0x04 || public key). */
export function cosignatureKeyId(name: string, public_key: Uint8Array): Uint8Array {
  return sha256(concat(utf8(name), utf8("\n"), Uint8Array.of(COSIGNATURE_V1), public_key)).slice(0, 4);
}

export type WitnessKey = { name: string; key_id: Uint8Array; public_key: Uint8Array };

/** A witness's verifier key `<name>+<key id hex>+<base64(0x04 || key)>`, checked (id, name, type). */
export function parseWitnessKey(vkey: string): WitnessKey | null {
  return parseKeyLine(vkey, COSIGNATURE_V1, cosignatureKeyId);
}

/** What a witness signs: "cosignature/v1\ntime <POSIX seconds>\n" and then the checkpoint body. */
export function cosignatureMessage(body: string, timestamp_s: number): Uint8Array {
  return utf8(`cosignature/v1\ntime ${timestamp_s}\n${body}`);
}

/**
 * One signature line against one witness key: `— <name> base64(key id || u64be time ||
 * Ed25519 signature)`. Lines of other names or key ids are "other_key" (a note carries the
 * log's own line and other witnesses' lines too).
 */
export function checkCosignatureLine(line: string, body: string, key: WitnessKey): { status: "ok"; timestamp_s: number } | { status: "other_key" | "bad_format" | "bad_signature" } {
  const m = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/.exec(line);
  if (!m) return { status: "bad_format" };
  if (m[1] !== key.name) return { status: "other_key" };
  let sig: Uint8Array;
  try {
    sig = b64decode(m[2]);
  } catch {
    return { status: "bad_format" };
  }
  if (sig.length < 4 || !equalBytes(sig.slice(0, 4), key.key_id)) return { status: "other_key" };
  if (sig.length !== 4 + 8 + 64) return { status: "bad_format" };
  let t = 0n;
  for (const b of sig.slice(4, 12)) t = (t << 8n) | BigInt(b);
  // At most 2^63 - 1 by the format; a plain number here, so at most 2^53 (year 285 million).
  if (t > BigInt(Number.MAX_SAFE_INTEGER)) return { status: "bad_format" };
  const timestamp_s = Number(t);
  return ed25519.verify(sig.slice(12), cosignatureMessage(body, timestamp_s), key.public_key) ? { status: "ok", timestamp_s } : { status: "bad_signature" };
}

export type WitnessMissing = { name: string; reason: "absent" | "bad_signature" | "bad_key" };
export type WitnessCheck =
  | { status: "ok" | "no_quorum"; quorum: number; cosigned: { name: string; timestamp_s: number }[]; missing: WitnessMissing[] }
  | { status: "bad_format" };

/**
 * A checkpoint note's cosignatures against the witnesses this verifier trusts (their verifier
 * keys) and the quorum it requires: which witnesses cosigned the note's body, which did not
 * (no line, or a line that does not verify: forged or for another body), and whether at least
 * `quorum` distinct witnesses did. The log's own signature is checked by openNote; this only
 * counts witnesses. With no witnesses and a quorum of 0 every note passes.
 */
export function checkWitnesses(note: string, witness_keys: readonly string[], quorum: number): WitnessCheck {
  const split = note.lastIndexOf("\n\n");
  if (split < 0 || !note.endsWith("\n")) return { status: "bad_format" };
  const body = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split("\n");
  const cosigned: { name: string; timestamp_s: number }[] = [];
  const missing: WitnessMissing[] = [];
  const seen = new Set<string>();
  for (const vkey of witness_keys) {
    const key = parseWitnessKey(vkey);
    if (!key) {
      missing.push({ name: vkey.split("+")[0] ?? vkey, reason: "bad_key" });
      continue;
    }
    const id = `${key.name}+${hex(key.key_id)}`;
    if (seen.has(id)) continue;
    seen.add(id);
    let found: WitnessMissing["reason"] = "absent";
    let at: number | null = null;
    for (const line of lines) {
      const r = checkCosignatureLine(line, body, key);
      if (r.status === "ok") {
        at = r.timestamp_s;
        break;
      }
      // A line in this witness's name that does not verify: forged, mangled, or for another body.
      if (r.status === "bad_signature" || (r.status === "bad_format" && line.startsWith(`\u2014 ${key.name} `))) found = "bad_signature";
    }
    if (at !== null) cosigned.push({ name: key.name, timestamp_s: at });
    else missing.push({ name: key.name, reason: found });
  }
  const ok = Number.isSafeInteger(quorum) && quorum >= 0 && cosigned.length >= quorum;
  return { status: ok ? "ok" : "no_quorum", quorum, cosigned, missing };
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

// ------------------------------------------------------------------ reading the whole log (C2SP tlog-tiles)

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 2 ** TILE_HEIGHT;

/** "x001/x234/067" for 1234067: three digits per element, every element but the last marked x. */
export function encodeIndex(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`bad tile index ${n}`);
  const groups: string[] = [];
  do {
    groups.unshift(String(n % 1000).padStart(3, "0"));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join("/");
}

export function widthSuffix(width: number): string {
  if (!Number.isInteger(width) || width < 1 || width > TILE_WIDTH) throw new RangeError(`bad tile width ${width}`);
  return width === TILE_WIDTH ? "" : `.p/${width}`;
}

/** The path of entry bundle `index` (leaves index*256 ..), partial when `width` < 256. */
export function entriesPath(index: number, width = TILE_WIDTH): string {
  return `tile/entries/${encodeIndex(index)}${widthSuffix(width)}`;
}

/** An entry bundle: each entry a big-endian uint16 length and its bytes. */
export function decodeEntryBundle(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + 2 > bytes.length) throw new RangeError("a truncated entry bundle");
    const len = (bytes[at] << 8) | bytes[at + 1];
    if (at + 2 + len > bytes.length) throw new RangeError("a truncated entry bundle");
    out.push(bytes.slice(at + 2, at + 2 + len));
    at += 2 + len;
  }
  return out;
}

/** RFC 9162 2.1.1: the root of the tree over these leaf hashes. */
export function rootOf(leaf_hashes: Hash[]): Hash {
  const n = leaf_hashes.length;
  if (n === 0) return EMPTY_ROOT;
  if (n === 1) return leaf_hashes[0];
  let k = 1;
  while (k * 2 < n) k *= 2;
  return nodeHash(rootOf(leaf_hashes.slice(0, k)), rootOf(leaf_hashes.slice(k)));
}

/** A price as the API and the leaves write it ("64250.5") in 10^-8 units; null if it is not one. */
export function priceE8(text: string): bigint | null {
  const m = /^(0|[1-9][0-9]{0,11})(?:\.([0-9]{1,8}))?$/.exec(text);
  return m ? BigInt(m[1]) * 100_000_000n + BigInt((m[2] ?? "").padEnd(8, "0")) : null;
}

export function fromHex(text: string): Uint8Array | null {
  if (!/^(?:[0-9a-f]{2})*$/.test(text)) return null;
  return Uint8Array.from(text.match(/../g) ?? [], (b) => parseInt(b, 16));
}

export function sha256Hex(bytes: Uint8Array): string {
  return hex(sha256(bytes));
}

// ------------------------------------------------------------------ auditing the simulation from the whole log

export type Finding = { ok: boolean; line: string };

type Commit = { index: number; symbol: string; from_ms: number; to_ms: number; walk: string; seed_sha256: string; sigma_ppm: number; tick: string; floor: string; start: string | null; after_ms: number | null };
type Hour = Commit & { seed: Uint8Array | null; prices: bigint[] | null };
/** `entry` is null only for an order voided because no tick came after it. */
type OrderLeaf = { index: number; id: number; symbol: string; feed?: string; entry: { price: string; ts: number } | null; exit: { price: string; ts: number } | null; ticks: { price: string; ts: number }[] };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Checks the simulated feed from every leaf of the log, in log order:
 * - each revealed seed hashes to its hour's commitment, and the reveal comes after it;
 * - each hour starts where the hour it names ended (or, the very first, at its stated price);
 * - every tick of every order on a simulated market is the walk's price of its second, in a
 *   committed hour, and the hour's commitment is in the log before the order's stake transfer
 *   (so the ticks were fixed before the order was placed).
 * Hours not yet revealed are reported as waiting, not as failures.
 */
export function auditSimulation(leaves: readonly string[], now_ms: number): Finding[] {
  const out: Finding[] = [];
  const hours = new Map<string, Hour>();
  const orders: OrderLeaf[] = [];
  const placedAt = new Map<string, number>();
  leaves.forEach((text, index) => {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      return;
    }
    if (!isObj(v)) return;
    if (v.kind === "sim_commit") hours.set(`${v.symbol}@${v.from_ms}`, { ...(v as unknown as Commit), index, seed: null, prices: null });
    else if (v.kind === "sim_reveal") {
      const h = hours.get(`${v.symbol}@${v.from_ms}`);
      const seed = typeof v.seed === "string" ? fromHex(v.seed) : null;
      if (!h) out.push({ ok: false, line: `seed of ${v.symbol} ${iso(Number(v.from_ms))} (leaf ${index}) has no commitment before it` });
      else if (!seed || seed.length !== 32 || sha256Hex(seed) !== h.seed_sha256) out.push({ ok: false, line: `seed of ${h.symbol} ${iso(h.from_ms)} (leaf ${index}) does not hash to its commitment (leaf ${h.index})` });
      else h.seed = seed;
    } else if (v.kind === "order") orders.push({ ...(v as unknown as OrderLeaf), index });
    else if (v.kind === "transfer" && v.ref_type === "order" && v.code === "trade_stake" && typeof v.ref_id === "string" && !placedAt.has(v.ref_id)) placedAt.set(v.ref_id, index);
  });

  // Walk each hour in time order per symbol; an hour starts from the end of the one it names.
  const sorted = [...hours.values()].sort((a, b) => (a.symbol === b.symbol ? a.from_ms - b.from_ms : a.symbol < b.symbol ? -1 : 1));
  for (const h of sorted) {
    const name = `${h.symbol} ${iso(h.from_ms)}..${iso(h.to_ms)}`;
    const tick = priceE8(h.tick);
    const floor = priceE8(h.floor);
    if (h.walk !== SIM_WALK || tick === null || tick <= 0n || floor === null || !Number.isSafeInteger(h.sigma_ppm) || h.from_ms % 1000 !== 0 || h.to_ms <= h.from_ms) {
      out.push({ ok: false, line: `${name}: a commitment this verifier cannot replay (leaf ${h.index})` });
      continue;
    }
    if (!h.seed) {
      out.push({ ok: true, line: `${name}: committed (leaf ${h.index}), seed not revealed yet${h.to_ms > now_ms ? " (the hour is not over)" : ""}` });
      continue;
    }
    let start: bigint | null;
    if (h.after_ms === null) start = h.start === null ? null : priceE8(h.start);
    else {
      const prev = hours.get(`${h.symbol}@${h.after_ms}`);
      start = prev?.prices && prev.to_ms <= h.from_ms ? prev.prices[prev.prices.length - 1] : null;
    }
    if (start === null) {
      out.push({ ok: false, line: `${name}: does not start from a price the log fixes (the hour it follows is missing, unrevealed or overlapping)` });
      continue;
    }
    h.prices = simPrices(h.seed, h.symbol, h.from_ms / 1000, h.to_ms / 1000, start, { sigma_ppm: h.sigma_ppm, tick_e8: tick, floor_e8: floor });
    out.push({ ok: true, line: `${name}: seed matches its commitment (leaf ${h.index}), ${h.prices.length} ticks recomputed` });
  }

  const firstFrom = (symbol: string) => sorted.find((h) => h.symbol === symbol)?.from_ms ?? Infinity;
  const hourOf = (symbol: string, ts: number) => sorted.find((h) => h.symbol === symbol && h.from_ms <= ts && ts < h.to_ms) ?? null;
  let checked = 0;
  let waiting = 0;
  for (const o of orders) {
    if (o.feed !== undefined && o.feed !== "simulation") continue;
    const ticks = [...(o.entry ? [o.entry] : []), ...(o.exit ? [o.exit] : []), ...o.ticks];
    const anchor = o.entry ?? ticks[0];
    if (!anchor) continue;
    const first = hourOf(o.symbol, anchor.ts);
    if (!first) {
      // An order of a leaf that names its feed as the simulation must be in a committed hour.
      if (o.feed === "simulation") out.push({ ok: false, line: `order ${o.id} (leaf ${o.index}): its entry tick is in no committed hour` });
      continue;
    }
    const placed = placedAt.get(String(o.id));
    if (placed !== undefined && placed < first.index) {
      out.push({ ok: false, line: `order ${o.id}: placed (leaf ${placed}) before its hour was committed (leaf ${first.index})` });
      continue;
    }
    let bad: string | null = null;
    let pending = false;
    for (const t of ticks) {
      const h = hourOf(o.symbol, t.ts);
      // A context tick from before the market's first committed hour is history, not the walk.
      if (!h && t !== o.entry && t !== o.exit && t.ts < firstFrom(o.symbol)) continue;
      if (!h) bad = `tick ${iso(t.ts)} is in no committed hour`;
      else if (!h.prices) pending = true;
      else if (t.ts % 1000 !== 0 || priceE8(t.price) !== h.prices[t.ts / 1000 - h.from_ms / 1000]) bad = `tick ${iso(t.ts)} says ${t.price}, the walk says ${t.ts % 1000 === 0 ? showE8(h.prices[t.ts / 1000 - h.from_ms / 1000]) : "nothing (not a whole second)"}`;
      if (bad) break;
    }
    if (bad) out.push({ ok: false, line: `order ${o.id} (leaf ${o.index}): ${bad}` });
    else if (pending) waiting += 1;
    else checked += 1;
  }
  out.push({ ok: true, line: `${checked} simulated orders: every tick is the committed walk's${waiting ? `; ${waiting} wait for their hour's seed` : ""}` });
  return out;
}

const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString().replace(".000Z", "Z") : String(ms));

function showE8(p: bigint): string {
  const frac = (p % 100_000_000n).toString().padStart(8, "0").replace(/0+$/, "");
  return `${p / 100_000_000n}${frac ? `.${frac}` : ""}`;
}
