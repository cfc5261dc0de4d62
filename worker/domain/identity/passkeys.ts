import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { base64urlnopad } from "@scure/base";
import { and, asc, count, eq, gt, isNull, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { passkeys, users, webauthn_challenges } from "../../db/schema";
import type { Client, SignInClient } from "./client";
import { openSession, refuseSignIn, takeSignInAttempt, type User } from "./users";

/**
 * Passkeys (WebAuthn) through @simplewebauthn/server. Challenges are ours, stored and spent
 * once (like wallet nonces); the relying party is the host the visitor sees, so a passkey
 * made on one deployment's host is asked for only there.
 */

export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60_000;
/** Enough for a phone, a laptop and a few security keys; a bound keeps the list readable. */
export const MAX_PASSKEYS = 10;
export const PASSKEY_NAME_MAX = 40;

/** The relying party of a request: its host name as rpID, its origin as the expected origin. */
export type RelyingParty = { id: string; origin: string; now_ms: number };

export function relyingPartyOf(url: string, now_ms: number): RelyingParty {
  const u = new URL(url);
  return { id: u.hostname, origin: u.origin, now_ms };
}

export type PasskeyEntry = { id: string; name: string; created_at_ms: number; last_used_at_ms: number | null };

export async function listPasskeys(db: Db, user_id: number): Promise<PasskeyEntry[]> {
  const rows = await db.select().from(passkeys).where(eq(passkeys.user_id, user_id)).orderBy(asc(passkeys.created_at_ms));
  return rows.map((r) => ({ id: r.id, name: r.name, created_at_ms: r.created_at_ms, last_used_at_ms: r.last_used_at_ms }));
}

async function issueChallenge(db: Db, challenge: string, purpose: "register" | "login", user_id: number | null, now_ms: number) {
  await db.batch([
    // An expired challenge can never be spent; issuing clears them so the table stays small.
    db.delete(webauthn_challenges).where(lt(webauthn_challenges.expires_at_ms, now_ms)),
    db.insert(webauthn_challenges).values({ challenge, purpose, user_id, created_at_ms: now_ms, expires_at_ms: now_ms + PASSKEY_CHALLENGE_TTL_MS }),
  ]);
}

/** One conditional write spends a live challenge: of concurrent replays exactly one gets the row. */
async function spendChallenge(db: Db, challenge: string, purpose: "register" | "login", user_id: number | null, now_ms: number): Promise<boolean> {
  const c = webauthn_challenges;
  const owner = user_id === null ? isNull(c.user_id) : eq(c.user_id, user_id);
  const spent = await db
    .update(c)
    .set({ used_at_ms: now_ms })
    .where(and(eq(c.challenge, challenge), eq(c.purpose, purpose), owner, isNull(c.used_at_ms), gt(c.expires_at_ms, now_ms)))
    .returning({ challenge: c.challenge });
  return spent.length === 1;
}

/**
 * @simplewebauthn's `expectedChallenge` callback, spending the challenge the answer carries;
 * `refused()` then tells a spent or unknown challenge apart from any other failed check.
 */
function challengeSpender(db: Db, purpose: "register" | "login", user_id: number | null, now_ms: number) {
  let refused = false;
  return {
    spend: async (challenge: string) => {
      const ok = await spendChallenge(db, challenge, purpose, user_id, now_ms);
      refused = !ok;
      return ok;
    },
    refused: () => refused,
  };
}

/** The user handle the authenticator stores with a discoverable credential: the user's id, nothing personal. */
const userHandle = (user_id: number) => new TextEncoder().encode(`u${user_id}`);

export type RegisterOptionsResult = { status: "ok"; options: Awaited<ReturnType<typeof generateRegistrationOptions>> } | { status: "passkey_limit" };

export async function passkeyRegisterOptions(db: Db, user: User, rp: RelyingParty): Promise<RegisterOptionsResult> {
  const existing = await db.select({ id: passkeys.id, transports: passkeys.transports }).from(passkeys).where(eq(passkeys.user_id, user.id));
  if (existing.length >= MAX_PASSKEYS) return { status: "passkey_limit" };
  const options = await generateRegistrationOptions({
    rpName: "Proofline",
    rpID: rp.id,
    userName: user.account,
    userID: userHandle(user.id),
    timeout: PASSKEY_CHALLENGE_TTL_MS,
    attestationType: "none",
    // The same authenticator twice would be one key under two names.
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: splitTransports(p.transports) })),
    // Discoverable, so signing in needs no account typed; verified, so it is a full sign-in.
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
  await issueChallenge(db, options.challenge, "register", user.id, rp.now_ms);
  return { status: "ok", options };
}

export type PasskeyRefusal = "passkey_challenge_expired" | "passkey_invalid";

export type RegisterResult = { status: "ok"; passkey: PasskeyEntry } | { status: PasskeyRefusal | "passkey_exists" | "passkey_limit" };

export async function passkeyRegisterVerify(
  db: Db,
  user: User,
  input: { response: RegistrationResponseJSON; name: string; client: Client },
  rp: RelyingParty,
): Promise<RegisterResult> {
  const challenge = challengeSpender(db, "register", user.id, rp.now_ms);
  let info;
  try {
    const verified = await verifyRegistrationResponse({ response: input.response, expectedChallenge: challenge.spend, expectedOrigin: rp.origin, expectedRPID: rp.id, requireUserVerification: true });
    if (!verified.verified) return { status: "passkey_invalid" };
    info = verified.registrationInfo;
  } catch {
    return { status: challenge.refused() ? "passkey_challenge_expired" : "passkey_invalid" };
  }
  const [{ n }] = await db.select({ n: count() }).from(passkeys).where(eq(passkeys.user_id, user.id));
  if (n >= MAX_PASSKEYS) return { status: "passkey_limit" };
  const cred = info.credential;
  const row = {
    id: cred.id,
    user_id: user.id,
    name: input.name || input.client.device || "Passkey",
    public_key: base64urlnopad.encode(cred.publicKey),
    counter: cred.counter,
    transports: (cred.transports ?? []).join(","),
    created_at_ms: rp.now_ms,
  };
  const inserted = await db.insert(passkeys).values(row).onConflictDoNothing().returning({ id: passkeys.id });
  if (inserted.length === 0) return { status: "passkey_exists" };
  return { status: "ok", passkey: { id: row.id, name: row.name, created_at_ms: row.created_at_ms, last_used_at_ms: null } };
}

export async function passkeyLoginOptions(db: Db, rp: RelyingParty) {
  // No allow-list: the authenticator offers its discoverable credentials for this host.
  const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: "required", timeout: PASSKEY_CHALLENGE_TTL_MS });
  await issueChallenge(db, options.challenge, "login", null, rp.now_ms);
  return options;
}

export type PasskeyLoginResult =
  | { status: "ok"; user: User; token: string }
  | { status: "throttled"; retry_after_ms: number }
  | { status: PasskeyRefusal | "passkey_unknown" };

/**
 * Sign-in with a passkey: possession and user verification in one step, so no further code
 * is asked. Counted in the account's sign-in throttle like a password, and recorded in its
 * history whatever the outcome.
 */
export async function passkeyLogin(db: Db, response: AuthenticationResponseJSON, client: Client, rp: RelyingParty): Promise<PasskeyLoginResult> {
  const found = await db
    .select({ passkey: passkeys, user: users })
    .from(passkeys)
    .innerJoin(users, eq(users.id, passkeys.user_id))
    .where(eq(passkeys.id, String(response.id)))
    .limit(1);
  if (found.length === 0) return { status: "passkey_unknown" };
  const { passkey, user } = found[0];
  const attempt = await takeSignInAttempt(db, user.account, rp.now_ms);
  if (attempt.status === "throttled") return attempt;
  const signIn: SignInClient = { ...client, method: "passkey" };
  const checked = await checkAssertion(db, response, passkey, rp);
  if (checked.status !== "ok") {
    await refuseSignIn(db, user.account, rp.now_ms, signIn);
    return checked;
  }
  const used = db.update(passkeys).set({ counter: checked.counter, last_used_at_ms: rp.now_ms }).where(eq(passkeys.id, passkey.id));
  return openSession(db, user, rp.now_ms, [used], signIn);
}

/** The signature over our spent challenge, by this credential's key, with a counter that moved on. */
async function checkAssertion(
  db: Db,
  response: AuthenticationResponseJSON,
  passkey: typeof passkeys.$inferSelect,
  rp: RelyingParty,
): Promise<{ status: "ok"; counter: number } | { status: PasskeyRefusal }> {
  const challenge = challengeSpender(db, "login", null, rp.now_ms);
  const credential = { id: passkey.id, publicKey: new Uint8Array(base64urlnopad.decode(passkey.public_key)), counter: passkey.counter, transports: splitTransports(passkey.transports) };
  try {
    // Throws, among others, when the counter did not grow past the stored one (a cloned key).
    const verified = await verifyAuthenticationResponse({ response, expectedChallenge: challenge.spend, expectedOrigin: rp.origin, expectedRPID: rp.id, credential, requireUserVerification: true });
    return verified.verified ? { status: "ok", counter: verified.authenticationInfo.newCounter } : { status: "passkey_invalid" };
  } catch {
    return { status: challenge.refused() ? "passkey_challenge_expired" : "passkey_invalid" };
  }
}

export async function renamePasskey(db: Db, user_id: number, id: string, name: string): Promise<{ status: "ok" | "passkey_unknown" }> {
  const done = await db.update(passkeys).set({ name }).where(and(eq(passkeys.id, id), eq(passkeys.user_id, user_id))).returning({ id: passkeys.id });
  return { status: done.length === 1 ? "ok" : "passkey_unknown" };
}

/** Removing takes effect at once: the next sign-in with it finds no credential. */
export async function removePasskey(db: Db, user_id: number, id: string): Promise<{ status: "ok" | "passkey_unknown" }> {
  const done = await db.delete(passkeys).where(and(eq(passkeys.id, id), eq(passkeys.user_id, user_id))).returning({ id: passkeys.id });
  return { status: done.length === 1 ? "ok" : "passkey_unknown" };
}

type Transport = NonNullable<Parameters<typeof generateRegistrationOptions>[0]["excludeCredentials"]>[number]["transports"];
const splitTransports = (s: string): Transport => (s ? s.split(",") : []) as Transport;
