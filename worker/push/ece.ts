/**
 * Message encryption for Web Push (RFC 8291) in the aes128gcm content coding (RFC 8188), with
 * WebCrypto only, so it runs in the Worker. One record: push messages are small (the payload is
 * a title, a body and a link), far below the 4096-byte record size.
 */
import { concatBytes as concat } from "@noble/hashes/utils.js";
import { base64urlnopad } from "@scure/base";

/** Bytes backed by a plain ArrayBuffer, as WebCrypto takes them. */
export type Bytes = Uint8Array<ArrayBuffer>;

/**
 * A key as Web Push and JWK write it (base64url without padding, RFC 8291 and RFC 7518), or null
 * when it is not exactly that: padding, the standard alphabet or stray trailing bits are refused.
 */
export function keyBytes(text: string): Bytes | null {
  try {
    return new Uint8Array(base64urlnopad.decode(text));
  } catch {
    return null;
  }
}

const RECORD_SIZE = 4096;
const text = (s: string) => new TextEncoder().encode(s);

async function hmac(key: Bytes, data: Bytes): Promise<Bytes> {
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, data));
}

/** A P-256 public key from its uncompressed point (65 bytes, 0x04 || x || y). */
export function importP256Public(point: Bytes): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", point, { name: "ECDH", namedCurve: "P-256" }, true, []);
}

/** A P-256 private key for ECDH from its scalar `d` (base64url) and its public point. */
export function importP256Private(d: string, point: Bytes): Promise<CryptoKey> {
  const jwk = { kty: "EC", crv: "P-256", d, x: base64urlnopad.encode(point.slice(1, 33)), y: base64urlnopad.encode(point.slice(33, 65)), ext: true };
  return crypto.subtle.importKey("jwk", jwk, { name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"]);
}

/** The content key and nonce both sides derive (RFC 8291 §3.4, RFC 8188 §2.2-2.3). */
async function keyAndNonce(ecdh_secret: Bytes, auth: Bytes, ua_public: Bytes, as_public: Bytes, salt: Bytes) {
  const prk_key = await hmac(auth, ecdh_secret);
  const ikm = await hmac(prk_key, concat(text("WebPush: info\0"), ua_public, as_public, new Uint8Array([1])));
  const prk = await hmac(salt, ikm);
  const cek = (await hmac(prk, text("Content-Encoding: aes128gcm\0\x01"))).slice(0, 16);
  const nonce = (await hmac(prk, text("Content-Encoding: nonce\0\x01"))).slice(0, 12);
  return { key: await crypto.subtle.importKey("raw", cek, "AES-GCM", false, ["encrypt", "decrypt"]), nonce };
}

export type Subscriber = { p256dh: Bytes; auth: Bytes };

/**
 * The body of one push message to `to`: salt, record size, the sender's one-time public key,
 * then the ciphertext of `plaintext` followed by the last-record delimiter (0x02). `fixed` is
 * for the RFC's test vector only: a real message takes a fresh key pair and salt every time.
 */
export async function encryptPush(to: Subscriber, plaintext: Bytes, fixed?: { salt: Bytes; as_private: CryptoKey; as_public: Bytes }): Promise<Bytes> {
  const salt = fixed?.salt ?? crypto.getRandomValues(new Uint8Array(16));
  let as_private = fixed?.as_private;
  let as_public = fixed?.as_public;
  if (!as_private || !as_public) {
    const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"])) as CryptoKeyPair;
    as_private = pair.privateKey;
    as_public = new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
  }
  const ecdh_secret = new Uint8Array(await crypto.subtle.deriveBits({ name: "ECDH", public: await importP256Public(to.p256dh) }, as_private, 256));
  const { key, nonce } = await keyAndNonce(ecdh_secret, to.auth, to.p256dh, as_public, salt);
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce }, key, concat(plaintext, new Uint8Array([2]))));
  const header = new Uint8Array(21);
  header.set(salt, 0);
  new DataView(header.buffer).setUint32(16, RECORD_SIZE);
  header[20] = as_public.length;
  return concat(header, as_public, sealed);
}

/**
 * What the browser does with a push body: the receiving side of the same derivation. The app
 * never receives pushes; tests decrypt what the Worker sent with the subscription's private key.
 */
export async function decryptPush(body: Bytes, ua: { private_key: CryptoKey; p256dh: Bytes; auth: Bytes }): Promise<Bytes> {
  const salt = body.slice(0, 16);
  const id_len = body[20];
  const as_public = body.slice(21, 21 + id_len);
  const ecdh_secret = new Uint8Array(await crypto.subtle.deriveBits({ name: "ECDH", public: await importP256Public(as_public) }, ua.private_key, 256));
  const { key, nonce } = await keyAndNonce(ecdh_secret, ua.auth, ua.p256dh, as_public, salt);
  const padded = new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce }, key, body.slice(21 + id_len)));
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error("not a last record");
  return padded.slice(0, end);
}

/** A subscription's keys as the browser gives them (base64url), or null when they are not P-256 and 16 bytes. */
export function subscriberOf(p256dh: string, auth: string): Subscriber | null {
  const point = keyBytes(p256dh);
  const secret = keyBytes(auth);
  if (!point || point.length !== 65 || point[0] !== 4 || !secret || secret.length !== 16) return null;
  return { p256dh: point, auth: secret };
}
