import { argon2id } from "@noble/hashes/argon2.js";
import { base64urlnopad } from "./encoding";

/**
 * Argon2id with OWASP's minimum profile (19 MiB, t=2, p=1). Pure JS (@noble/hashes), so it
 * runs in Workers, which cannot compile WebAssembly at run time, and it is not PBKDF2, which
 * production Workers cap at 100,000 iterations. Parameters live in the stored string, so they
 * can be raised later and old hashes still verify.
 */
export const KDF_PARAMS = { m: 19456, t: 2, p: 1, dkLen: 32 } as const;

export function hashPassword(password: string, params: { m: number; t: number; p: number; dkLen: number } = KDF_PARAMS): string {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = argon2id(encode(password), salt, params);
  return `$argon2id$v=19$m=${params.m},t=${params.t},p=${params.p}$${base64urlnopad.encode(salt)}$${base64urlnopad.encode(hash)}`;
}

export function verifyPassword(password: string, stored: string): boolean {
  const parsed = parsePhc(stored);
  if (!parsed) return false;
  const hash = argon2id(encode(password), parsed.salt, { m: parsed.m, t: parsed.t, p: parsed.p, dkLen: parsed.hash.length });
  return constantTimeEqual(hash, parsed.hash);
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
  const m = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
  if (!m) return null;
  return { m: Number(m[1]), t: Number(m[2]), p: Number(m[3]), salt: base64urlnopad.decode(m[4]), hash: base64urlnopad.decode(m[5]) };
}

export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
