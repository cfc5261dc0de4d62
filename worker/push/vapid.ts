/**
 * VAPID (RFC 8292): the Worker signs each push request with its own P-256 key, so the push
 * service knows every message to a subscription comes from the server the browser subscribed
 * with (`applicationServerKey`, the public key served at /api/user/push/key).
 *
 * The key: the Worker secret VAPID_PRIVATE_KEY (a P-256 private JWK) in production. Elsewhere
 * (local runs, tests) a pair is made on first use and kept in the local D1 (`push_vapid_local`),
 * so it survives restarts and is never in the repository. Production without the secret has no
 * push at all rather than a key stored in the database.
 */
import { isLocalRun } from "../app-env";
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { push_vapid_local } from "../db/schema";
import { concatBytes } from "@noble/hashes/utils.js";
import { base64urlnopad } from "@scure/base";
import { keyBytes } from "./ece";
import { logError } from "../observability/log";

export type VapidKeys = { public_key: string; sign: CryptoKey };
type VapidEnv = { APP_ENV: string; VAPID_PRIVATE_KEY?: string; VAPID_SUBJECT?: string };

/** A JWT is valid this long; push services refuse more than 24 h. */
const TOKEN_TTL_S = 12 * 60 * 60;

async function fromJwk(jwk: JsonWebKey): Promise<VapidKeys | null> {
  const x = keyBytes(jwk.x ?? "");
  const y = keyBytes(jwk.y ?? "");
  if (jwk.kty !== "EC" || jwk.crv !== "P-256" || !jwk.d || !x || !y) return null;
  const sign = await crypto.subtle.importKey("jwk", { kty: "EC", crv: "P-256", d: jwk.d, x: jwk.x, y: jwk.y }, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
  return { public_key: base64urlnopad.encode(concatBytes(new Uint8Array([4]), x, y)), sign };
}

async function localJwk(db: Db, now_ms: number): Promise<JsonWebKey> {
  const row = await db.query.push_vapid_local.findFirst({ where: eq(push_vapid_local.id, 1) });
  if (row) return JSON.parse(row.private_jwk) as JsonWebKey;
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign"])) as CryptoKeyPair;
  const jwk = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
  // Two first uses at once: the first insert wins and both read it back.
  await db.insert(push_vapid_local).values({ id: 1, private_jwk: JSON.stringify(jwk), created_at_ms: now_ms }).onConflictDoNothing();
  const kept = await db.query.push_vapid_local.findFirst({ where: eq(push_vapid_local.id, 1) });
  return JSON.parse(kept!.private_jwk) as JsonWebKey;
}

/** The deployment's VAPID keys, or null when push is not configured (production without the secret, or a malformed one). */
export async function vapidKeys(env: VapidEnv, db: Db, now_ms: number): Promise<VapidKeys | null> {
  try {
    if (env.VAPID_PRIVATE_KEY) return await fromJwk(JSON.parse(env.VAPID_PRIVATE_KEY) as JsonWebKey);
    if (!isLocalRun(env)) return null;
    return await fromJwk(await localJwk(db, now_ms));
  } catch (err) {
    logError("push.vapid_unusable", { err });
    return null;
  }
}

/** The `Authorization` header of one push request to `endpoint` (RFC 8292 §3). */
export async function vapidAuthorization(keys: VapidKeys, endpoint: string, env: VapidEnv, now_ms: number): Promise<string> {
  const json = (v: unknown) => base64urlnopad.encode(new TextEncoder().encode(JSON.stringify(v)));
  const claims: Record<string, string | number> = { aud: new URL(endpoint).origin, exp: Math.floor(now_ms / 1000) + TOKEN_TTL_S };
  if (env.VAPID_SUBJECT) claims.sub = env.VAPID_SUBJECT;
  const unsigned = `${json({ typ: "JWT", alg: "ES256" })}.${json(claims)}`;
  // WebCrypto's ECDSA signature is r || s, exactly JWS's ES256 form.
  const signature = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, keys.sign, new TextEncoder().encode(unsigned)));
  return `vapid t=${unsigned}.${base64urlnopad.encode(signature)}, k=${keys.public_key}`;
}
