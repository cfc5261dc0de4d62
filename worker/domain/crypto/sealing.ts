/**
 * Sealing values at rest under the deployment's keyring: bank card numbers (worker/domain/binding/),
 * authenticator secrets of users and operators (worker/domain/identity/) and payout details
 * (worker/domain/withdrawals/). A leaked database or backup must not hand them out, so they are
 * sealed with AES-256-GCM under a key of the deployment's keyring (decision 135), with a fresh
 * 96-bit IV each time. Finding a duplicate card must not need decryption, so each card also gets
 * a fingerprint: HMAC-SHA256 of the normalized number. Each key's working keys are derived from
 * its secret with HKDF-SHA256 under distinct labels, so the sealing key is never reused as a MAC
 * key. WebCrypto only: the same in workerd and Node. Every function takes the keys; only
 * `cardKeySecret` looks at the env. (The names say "card": cards were the first values sealed,
 * and the secrets keep their names, CARD_KEYS and CARD_KEY.)
 *
 * The keyring: the secret `CARD_KEYS` ("id:base64,id:base64", newest first) and the older single
 * secret `CARD_KEY`, which is key "0" at the end of the ring. New values are sealed with the
 * newest key as "v2.<key id>.<iv>.<ciphertext>"; values sealed before the keyring
 * ("v1.<iv>.<ciphertext>") open with key "0". `npm run keys:reseal` moves old values to the
 * newest key, after which an old key can leave the ring (docs/ops/keys.md).
 */
import { isLocalRun } from "../../app-env";
import { base64 } from "@scure/base";

/** One key of the ring: its id and the three working keys derived from its secret. */
export type CardKey = { id: string; seal: CryptoKey; fingerprint: CryptoKey; recovery: CryptoKey };
/** The ring: its own fields are the newest key's (what new values use); `ring` is every key, newest first. */
export type CardKeys = CardKey & { ring: readonly CardKey[] };
export type CardKeysResult = { status: "ok"; keys: CardKeys } | { status: "missing" | "invalid" };
export type OpenResult = { status: "ok"; text: string } | { status: "unreadable" | "key_missing" | "key_unknown"; key_id?: string };

/**
 * The development key: base64 of the ASCII text "proofline-development-card-key!!". Public on
 * purpose (it is in this file), so it is used only where APP_ENV is not "production": local
 * runs, tests and benches. A production deploy sets its own (docs/ops/keys.md).
 */
export const DEV_CARD_KEY = "cHJvb2ZsaW5lLWRldmVsb3BtZW50LWNhcmQta2V5ISE=";

/** The id `CARD_KEY` (the one key before the ring) has in the ring; "v1." values name no key and open with it. */
export const LEGACY_KEY_ID = "0";
/** Short, and never a "." or ":" or ",": the id sits between the separators of a sealed value and of CARD_KEYS. */
const KEY_ID = /^[A-Za-z0-9_-]{1,16}$/;

const V1_PREFIX = "v1.";
const V2_PREFIX = "v2.";
const SEAL_INFO = "proofline/card/aes-256-gcm/v1";
const FINGERPRINT_INFO = "proofline/card/fingerprint/v1";
const RECOVERY_INFO = "proofline/two-factor/recovery-code/v1";

type KeyEnv = { APP_ENV: string; CARD_KEY?: string; CARD_KEYS?: string };

/**
 * The keyring's text ("id:secret,..." newest first, or a bare secret for key "0"), or null:
 * production never falls back to the public development key.
 */
export function cardKeySecret(env: KeyEnv): string | null {
  const ring = [env.CARD_KEYS?.trim(), env.CARD_KEY ? (env.CARD_KEYS?.trim() ? `${LEGACY_KEY_ID}:${env.CARD_KEY.trim()}` : env.CARD_KEY) : ""].filter(Boolean);
  if (ring.length) return ring.join(",");
  return isLocalRun(env) ? DEV_CARD_KEY : null;
}

/** "id:secret" pairs (a bare secret is key "0"); null when an id is malformed or repeated. */
export function parseKeyring(text: string): { id: string; secret: string }[] | null {
  const entries = text.split(/[,\s]+/).filter(Boolean).map((item) => {
    const at = item.indexOf(":");
    return at < 0 ? { id: LEGACY_KEY_ID, secret: item } : { id: item.slice(0, at), secret: item.slice(at + 1) };
  });
  if (!entries.length || entries.some((e) => !KEY_ID.test(e.id))) return null;
  return new Set(entries.map((e) => e.id)).size === entries.length ? entries : null;
}

const imported = new Map<string, Promise<CardKeysResult>>();

/** Derives the working keys once per isolate and keyring (deriving costs more than using). */
export function importCardKeys(secret: string | null): Promise<CardKeysResult> {
  if (!secret) return Promise.resolve({ status: "missing" });
  let keys = imported.get(secret);
  if (!keys) {
    keys = deriveRing(secret);
    imported.set(secret, keys);
  }
  return keys;
}

async function deriveRing(text: string): Promise<CardKeysResult> {
  const entries = parseKeyring(text);
  if (!entries) return { status: "invalid" };
  const ring = await Promise.all(entries.map((e) => deriveKey(e.id, e.secret)));
  if (ring.some((k) => k === null)) return { status: "invalid" };
  const keys = ring as CardKey[];
  return { status: "ok", keys: { ...keys[0], ring: keys } };
}

async function deriveKey(id: string, secret: string): Promise<CardKey | null> {
  const raw = decodeBase64(secret.trim());
  if (!raw || raw.length !== 32) return null;
  const base = await crypto.subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]);
  const hkdf = (info: string) => ({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: utf8(info) });
  const mac = { name: "HMAC", hash: "SHA-256", length: 256 };
  const [seal, fingerprint, recovery] = await Promise.all([
    crypto.subtle.deriveKey(hkdf(SEAL_INFO), base, { name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]),
    crypto.subtle.deriveKey(hkdf(FINGERPRINT_INFO), base, mac, false, ["sign"]),
    crypto.subtle.deriveKey(hkdf(RECOVERY_INFO), base, mac, false, ["sign"]),
  ]);
  return { id, seal, fingerprint, recovery };
}

/** The AES-GCM parameters: a v2 value's key id is authenticated data, so it cannot be swapped. */
const gcm = (iv: Uint8Array<ArrayBuffer>, id: string | null): AesGcmParams => (id === null ? { name: "AES-GCM", iv } : { name: "AES-GCM", iv, additionalData: utf8(`${V2_PREFIX}${id}`) });

/**
 * "v2.<key id>.<iv>.<ciphertext>" under the newest key: AES-GCM's tag refuses any change on
 * opening. Key "0" still writes "v1.<iv>.<ciphertext>": until a second key is added, a rollback
 * to a Worker from before the ring reads everything this one wrote.
 */
export async function sealCard(keys: CardKeys, text: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const legacy = keys.id === LEGACY_KEY_ID;
  const ct = new Uint8Array(await crypto.subtle.encrypt(gcm(iv, legacy ? null : keys.id), keys.seal, utf8(text)));
  return legacy ? `${V1_PREFIX}${base64.encode(iv)}.${base64.encode(ct)}` : `${V2_PREFIX}${keys.id}.${base64.encode(iv)}.${base64.encode(ct)}`;
}

/** Whether a stored value is sealed, but not with the ring's newest key: what `keys:reseal` moves. */
export function sealedUnderOlderKey(keys: CardKeys, stored: string): boolean {
  const id = sealedKeyId(stored);
  return id !== null && id !== keys.id;
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(V1_PREFIX) || stored.startsWith(V2_PREFIX);
}

/** The id of the key a stored value is sealed with ("0" for a v1 value), or null for a plain one. */
export function sealedKeyId(stored: string): string | null {
  if (stored.startsWith(V1_PREFIX)) return LEGACY_KEY_ID;
  if (!stored.startsWith(V2_PREFIX)) return null;
  return stored.slice(V2_PREFIX.length).split(".")[0];
}

/**
 * The plain text of a stored value. Values written before encryption (no prefix) are returned
 * as they are; a sealed value needs its key in the ring ("key_unknown" names the missing id)
 * and must pass GCM's check.
 */
export async function openCard(keys: CardKeys | null, stored: string): Promise<OpenResult> {
  if (!isSealed(stored)) return { status: "ok", text: stored };
  if (!keys) return { status: "key_missing" };
  const v2 = stored.startsWith(V2_PREFIX);
  const parts = stored.slice(V1_PREFIX.length).split(".");
  if (parts.length !== (v2 ? 3 : 2)) return { status: "unreadable" };
  const id = v2 ? parts.shift()! : LEGACY_KEY_ID;
  const key = keys.ring.find((k) => k.id === id);
  if (!key) return { status: "key_unknown", key_id: id };
  const iv = decodeBase64(parts[0]);
  const ct = decodeBase64(parts[1]);
  if (!iv || iv.length !== 12 || !ct) return { status: "unreadable" };
  try {
    return { status: "ok", text: new TextDecoder().decode(await crypto.subtle.decrypt(gcm(iv, v2 ? id : null), key.seal, ct)) };
  } catch {
    // WebCrypto reports a failed tag check only by throwing: tampered, or another key.
    return { status: "unreadable" };
  }
}

/** Same number (normalized), same key → same fingerprint; without the key it reveals nothing. */
export async function cardFingerprint(key: CardKey, normalized_number: string): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key.fingerprint, utf8(normalized_number)));
  return `v1:${base64.encode(mac)}`;
}

/** The number's fingerprint under every key of the ring: a card bound under an older key is still found. */
export function cardFingerprints(keys: CardKeys, normalized_number: string): Promise<string[]> {
  return Promise.all(keys.ring.map((k) => cardFingerprint(k, normalized_number)));
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
export function cardKeysFor(env: KeyEnv): Promise<CardKeysResult> {
  return importCardKeys(cardKeySecret(env));
}
