/**
 * The signing side of C2SP signed notes: a checkpoint body, a signature line per key, and the
 * verifier key users pin; and a witness's cosignature (C2SP tlog-cosignature v1), which the log
 * never makes itself but its tests' witnesses do. The checks live in verify.ts (what users run).
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { b64encode, cosignatureKeyId, cosignatureMessage, hex, keyId } from "./verify";

/** A new Ed25519 signing key: 32 random bytes (the seed RFC 8032 calls the private key). */
export function generateSigningKey(): Uint8Array {
  return ed25519.utils.randomSecretKey();
}

export function publicKeyOf(seed: Uint8Array): Uint8Array {
  // Worked out once per seed: every checkpoint's signature line names its key (a scalar
  // multiplication each time otherwise, a third of signing a checkpoint).
  let key = publicKeys.get(seed);
  if (!key) publicKeys.set(seed, (key = ed25519.getPublicKey(seed)));
  return key.slice();
}
const publicKeys = new WeakMap<Uint8Array, Uint8Array>();

/** `<name>+<key id hex>+<base64(0x01 || public key)>`: what users pin and verify with. */
export function verifierKey(name: string, public_key: Uint8Array): string {
  return `${name}+${hex(keyId(name, public_key))}+${b64encode(Uint8Array.of(0x01, ...public_key))}`;
}

/**
 * C2SP tlog-checkpoint body: origin, tree size, base64 root hash, each on its own line; then
 * extension lines (a log-key handover names the next key: verify.ts `HANDOVER_LINE`).
 */
export function checkpointBody(origin: string, tree_size: number, root_hash: Uint8Array, extensions: string[] = []): string {
  if (!origin || origin.includes("\n")) throw new TypeError("a checkpoint origin is one non-empty line");
  if (extensions.some((e) => !e || e.includes("\n"))) throw new TypeError("an extension is one non-empty line");
  return `${origin}\n${tree_size}\n${b64encode(root_hash)}\n${extensions.map((e) => `${e}\n`).join("")}`;
}

/**
 * The signed note: the body, a blank line, and "— <name> <base64(key id || signature)>", one
 * line per key (a handover checkpoint: the old key's, then the new key's).
 */
export function signNote(body: string, name: string, ...seeds: Uint8Array[]): string {
  if (!body.endsWith("\n") || body.includes("\n\n")) throw new TypeError("a note body is lines, each ending in a newline, none empty");
  if (seeds.length === 0) throw new TypeError("a note needs a signature");
  const lines = seeds.map((seed) => {
    const signature = ed25519.sign(new TextEncoder().encode(body), seed);
    return `\u2014 ${name} ${b64encode(Uint8Array.of(...keyId(name, publicKeyOf(seed)), ...signature))}\n`;
  });
  return `${body}\n${lines.join("")}`;
}

/** A witness's verifier key: `<name>+<key id hex>+<base64(0x04 || public key)>`. */
export function witnessVerifierKey(name: string, public_key: Uint8Array): string {
  return `${name}+${hex(cosignatureKeyId(name, public_key))}+${b64encode(Uint8Array.of(0x04, ...public_key))}`;
}

/**
 * A cosignature/v1 line over a checkpoint body at `timestamp_s` (POSIX seconds): "— <name>
 * base64(key id || u64 big-endian time || Ed25519 signature)", without the final newline.
 */
export function cosign(body: string, name: string, seed: Uint8Array, timestamp_s: number): string {
  if (!Number.isSafeInteger(timestamp_s) || timestamp_s < 0) throw new RangeError("a cosignature's time is whole non-negative seconds");
  const time = new Uint8Array(8);
  new DataView(time.buffer).setBigUint64(0, BigInt(timestamp_s));
  const signature = ed25519.sign(cosignatureMessage(body, timestamp_s), seed);
  return `\u2014 ${name} ${b64encode(Uint8Array.of(...cosignatureKeyId(name, publicKeyOf(seed)), ...time, ...signature))}`;
}
