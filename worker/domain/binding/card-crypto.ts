/**
 * Bank card numbers at rest. A leaked database or backup must not hand out card numbers, so
 * they are sealed with AES-256-GCM under the Worker secret CARD_KEY (32 random bytes, base64),
 * stored as "v1.<iv base64>.<ciphertext base64>" with a fresh 96-bit IV each time. Finding a
 * duplicate card must not need decryption, so each card also gets a fingerprint: HMAC-SHA256 of
 * the normalized number. The two working keys are derived from CARD_KEY with HKDF-SHA256 under
 * distinct labels, so the sealing key is never reused as a MAC key. WebCrypto only: the same in
 * workerd and Node. Every function takes the keys; only `cardKeySecret` looks at the env.
 */
import { isLocalRun } from "../../app-env";
import { base64 } from "@scure/base";

export type CardKeys = { seal: CryptoKey; fingerprint: CryptoKey; recovery: CryptoKey };
export type CardKeysResult = { status: "ok"; keys: CardKeys } | { status: "missing" | "invalid" };
export type OpenResult = { status: "ok"; text: string } | { status: "unreadable" | "key_missing" };

/**
 * The development key: base64 of the ASCII text "proofline-development-card-key!!". Public on
 * purpose (it is in this file), so it is used only where APP_ENV is not "production": local
 * runs, tests and benches. A production deploy sets its own with `wrangler secret put CARD_KEY`.
 */
export const DEV_CARD_KEY = "cHJvb2ZsaW5lLWRldmVsb3BtZW50LWNhcmQta2V5ISE=";

const SEALED_PREFIX = "v1.";
const SEAL_INFO = "proofline/card/aes-256-gcm/v1";
const FINGERPRINT_INFO = "proofline/card/fingerprint/v1";
const RECOVERY_INFO = "proofline/two-factor/recovery-code/v1";

/** The key material to use, or null: production never falls back to the public development key. */
export function cardKeySecret(env: { APP_ENV: string; CARD_KEY?: string }): string | null {
  if (env.CARD_KEY) return env.CARD_KEY;
  return isLocalRun(env) ? DEV_CARD_KEY : null;
}

const imported = new Map<string, Promise<CardKeysResult>>();

/** Derives the working keys once per isolate and secret (deriving costs more than using). */
export function importCardKeys(secret: string | null): Promise<CardKeysResult> {
  if (!secret) return Promise.resolve({ status: "missing" });
  let keys = imported.get(secret);
  if (!keys) {
    keys = deriveKeys(secret);
    imported.set(secret, keys);
  }
  return keys;
}

async function deriveKeys(secret: string): Promise<CardKeysResult> {
  const raw = decodeBase64(secret.trim());
  if (!raw || raw.length !== 32) return { status: "invalid" };
  const base = await crypto.subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]);
  const hkdf = (info: string) => ({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: utf8(info) });
  const mac = { name: "HMAC", hash: "SHA-256", length: 256 };
  const [seal, fingerprint, recovery] = await Promise.all([
    crypto.subtle.deriveKey(hkdf(SEAL_INFO), base, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]),
    crypto.subtle.deriveKey(hkdf(FINGERPRINT_INFO), base, mac, false, ["sign"]),
    crypto.subtle.deriveKey(hkdf(RECOVERY_INFO), base, mac, false, ["sign"]),
  ]);
  return { status: "ok", keys: { seal, fingerprint, recovery } };
}

/** "v1.<iv>.<ciphertext>": AES-GCM's tag (inside the ciphertext) refuses any change on opening. */
export async function sealCard(keys: CardKeys, text: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, keys.seal, utf8(text)));
  return `${SEALED_PREFIX}${base64.encode(iv)}.${base64.encode(ct)}`;
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(SEALED_PREFIX);
}

/**
 * The plain text of a stored value. Values written before encryption (no "v1." prefix) are
 * returned as they are; a sealed value needs the key and must pass GCM's check.
 */
export async function openCard(keys: CardKeys | null, stored: string): Promise<OpenResult> {
  if (!isSealed(stored)) return { status: "ok", text: stored };
  if (!keys) return { status: "key_missing" };
  const parts = stored.slice(SEALED_PREFIX.length).split(".");
  const iv = parts.length === 2 ? decodeBase64(parts[0]) : null;
  const ct = parts.length === 2 ? decodeBase64(parts[1]) : null;
  if (!iv || iv.length !== 12 || !ct) return { status: "unreadable" };
  try {
    return { status: "ok", text: new TextDecoder().decode(await crypto.subtle.decrypt({ name: "AES-GCM", iv }, keys.seal, ct)) };
  } catch {
    // WebCrypto reports a failed tag check only by throwing: tampered, or another key.
    return { status: "unreadable" };
  }
}

/** Same number (normalized), same key → same fingerprint; without the key it reveals nothing. */
export async function cardFingerprint(keys: CardKeys, normalized_number: string): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", keys.fingerprint, utf8(normalized_number)));
  return `v1:${base64.encode(mac)}`;
}

function utf8(text: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(text) as Uint8Array<ArrayBuffer>;
}

/** Standard padded base64; anything else (a bad secret, a damaged stored value) reads as null. */
function decodeBase64(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    // WebCrypto wants a plain ArrayBuffer behind the bytes: copy into one.
    return new Uint8Array(base64.decode(text));
  } catch {
    return null;
  }
}

/** The keys for this deployment (see `cardKeySecret`). */
export function cardKeysFor(env: { APP_ENV: string; CARD_KEY?: string }): Promise<CardKeysResult> {
  return importCardKeys(cardKeySecret(env));
}
