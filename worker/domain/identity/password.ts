import { argon2id } from "@noble/hashes/argon2.js";
import { base64nopad, base64urlnopad } from "@scure/base";

/**
 * Argon2id with OWASP's minimum profile (19 MiB, t=2, p=1). Pure JS (@noble/hashes), so it
 * runs in Workers, which cannot compile WebAssembly at run time, and it is not PBKDF2, which
 * production Workers cap at 100,000 iterations. Parameters live in the stored string, so they
 * can be raised later and old hashes still verify (and are rewritten at the next sign-in).
 */
type KdfParams = { m: number; t: number; p: number; dkLen: number };
export const OWASP_KDF_PARAMS: KdfParams = { m: 19456, t: 2, p: 1, dkLen: 32 };

/**
 * Defined as true only by vitest's workerd projects (vitest.config.ts), where a thousand
 * sign-ups at 19 MiB each were a sixth of the test run's CPU (decision 151). It is a compile-time
 * constant, not a setting: no build that serves users defines it, so nothing at run time (a
 * variable, a secret, an operator) can weaken the hash. tests/unit/password.test.ts runs without
 * it and holds the production profile.
 */
declare const __TEST_LIGHT_KDF__: boolean | undefined;
export const KDF_PARAMS: KdfParams =
  typeof __TEST_LIGHT_KDF__ !== "undefined" && __TEST_LIGHT_KDF__ === true ? { m: 64, t: 2, p: 1, dkLen: 32 } : OWASP_KDF_PARAMS;

/**
 * The PHC string format with standard base64 without padding, as the argon2 reference
 * implementation writes it, so any other argon2 verifier reads our stored hashes.
 */
export function hashPassword(password: string, params: KdfParams = KDF_PARAMS): string {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = argon2id(encode(password), salt, params);
  return `$argon2id$v=19$m=${params.m},t=${params.t},p=${params.p}$${base64nopad.encode(salt)}$${base64nopad.encode(hash)}`;
}

export function verifyPassword(password: string, stored: string): boolean {
  const parsed = parsePhc(stored);
  if (!parsed) return false;
  const hash = argon2id(encode(password), parsed.salt, { m: parsed.m, t: parsed.t, p: parsed.p, dkLen: parsed.hash.length });
  return constantTimeEqual(hash, parsed.hash);
}

const CURRENT = new RegExp(`^\\$argon2id\\$v=19\\$m=${KDF_PARAMS.m},t=${KDF_PARAMS.t},p=${KDF_PARAMS.p}\\$[A-Za-z0-9+/]+\\$[A-Za-z0-9+/]{${Math.ceil((KDF_PARAMS.dkLen * 4) / 3)}}$`);

/**
 * True when a stored hash is not what `hashPassword` writes today: the base64url form of
 * earlier versions, or other parameters. Sign-in rewrites such a hash while it has the password.
 */
export function needsRehash(stored: string): boolean {
  return !CURRENT.test(stored);
}

/** A hash of a random password: verifying against it costs the same as a real check. */
let dummyHash: string | null = null;
export function verifyAgainstDummy(password: string): false {
  dummyHash ??= hashPassword(crypto.randomUUID());
  verifyPassword(password, dummyHash);
  return false;
}

function encode(password: string): Uint8Array {
  return new TextEncoder().encode(password.normalize("NFKC"));
}

function parsePhc(stored: string) {
  const m = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/_-]+)\$([A-Za-z0-9+/_-]+)$/.exec(stored);
  if (!m) return null;
  const salt = decodeBase64(m[4]);
  const hash = decodeBase64(m[5]);
  if (!salt || !hash) return null;
  return { m: Number(m[1]), t: Number(m[2]), p: Number(m[3]), salt, hash };
}

/**
 * Standard base64 as written now, or base64url as written before: a '-' or '_' tells the old
 * form apart, and an old string without either reads as the same bytes in both alphabets.
 */
function decodeBase64(text: string): Uint8Array | null {
  try {
    return (/[-_]/.test(text) ? base64urlnopad : base64nopad).decode(text);
  } catch {
    return null;
  }
}

export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
