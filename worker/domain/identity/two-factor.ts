import { sha256 } from "@noble/hashes/sha2.js";
import { base64, hex } from "@scure/base";
import { and, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import type { Db } from "../../db/client";
import { LEGACY_KEY_ID, openCard, sealCard, type CardKey, type CardKeys } from "../crypto/sealing";
import { two_factor, two_factor_recovery_codes } from "../../db/schema";
import { verifyPassword } from "./password";
import { failedAttempt, succeededAttempt, takeAttempt, userThrottleKey } from "./throttle";

/** RFC 6238 as authenticator apps use it: SHA-1, six digits, 30-second steps. */
export const TOTP_PARAMS = { algorithm: "SHA1", digits: 6, period: 30 } as const;
/** One step either way: a phone clock a little off still works; an older code does not. */
export const TOTP_DRIFT_STEPS = 1;
export const RECOVERY_CODE_COUNT = 10;
const ISSUER = "Proofline";

export const stepAt = (now_ms: number) => Math.floor(now_ms / 1000 / TOTP_PARAMS.period);

/** The code of one time step (digits 6 for the app; 8 only to check RFC 6238's own vectors). */
export function totpCode(secret_base32: string, step: number, digits: number = TOTP_PARAMS.digits): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret_base32), algorithm: TOTP_PARAMS.algorithm, digits, period: TOTP_PARAMS.period });
  return totp.generate({ timestamp: step * TOTP_PARAMS.period * 1000 });
}

/**
 * The step `code` belongs to, within one step of now and newer than `last_step`, or null.
 * Refusing steps up to `last_step` is what makes a code (and any code before it) single-use.
 */
export function matchStep(secret_base32: string, code: string, now_ms: number, last_step: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const now = stepAt(now_ms);
  for (let step = now - TOTP_DRIFT_STEPS; step <= now + TOTP_DRIFT_STEPS; step++) {
    if (step > last_step && sameText(totpCode(secret_base32, step), code)) return step;
  }
  return null;
}

function sameText(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.min(a.length, b.length); i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export function otpauthUrl(secret_base32: string, account: string): string {
  const totp = new TOTP({ issuer: ISSUER, label: account, secret: Secret.fromBase32(secret_base32), ...TOTP_PARAMS });
  return totp.toString();
}

/** A new key: 160 random bits (RFC 4226's recommended length), as base32 for the app. */
export const newTotpSecret = () => new Secret({ size: 20 }).base32;

/** Letters and digits that cannot be misread for each other (no 0/o, 1/l/i). */
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

/** Ten codes of ten characters (about 49 bits each), shown as "xxxxx-xxxxx". */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = crypto.getRandomValues(new Uint8Array(10));
    const chars = Array.from(bytes, (b) => RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length]).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** Case, spaces and the dash do not matter when a recovery code is typed back. */
const normalizeRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, "");

/**
 * How a recovery code is stored (decision 116): HMAC-SHA-256 under a recovery key derived from
 * a card key. A copy of D1 alone cannot test guesses against it; a plain SHA-256 of ~49 bits
 * could be searched offline, for every user at once. Key "0" (CARD_KEY) writes "v1:<mac>", a
 * key of the ring "v2:<key id>:<mac>" (decision 135): a one-way hash cannot be re-sealed, so
 * `keys:reseal` counts the codes each older key still holds.
 */
export async function recoveryCodeHash(key: CardKey, code: string): Promise<string> {
  const mac = base64.encode(new Uint8Array(await crypto.subtle.sign("HMAC", key.recovery, new TextEncoder().encode(normalizeRecoveryCode(code)))));
  return key.id === LEGACY_KEY_ID ? `v1:${mac}` : `v2:${key.id}:${mac}`;
}

/**
 * Codes made before 116 were stored as hex SHA-256 (no prefix). They still work, once each like
 * every code; nothing new is stored this way, and enabling again replaces them all.
 */
export function legacyRecoveryCodeHash(code: string): string {
  return hex.encode(sha256(new TextEncoder().encode(normalizeRecoveryCode(code))));
}

export const looksLikeTotp = (code: string) => /^\d{6}$/.test(code);

type Row = typeof two_factor.$inferSelect;

async function rowOf(db: Db, user_id: number): Promise<Row | undefined> {
  return db.query.two_factor.findFirst({ where: eq(two_factor.user_id, user_id) });
}

/**
 * The key at rest is sealed with the card key (where the deployment has none, production
 * without CARD_KEY, it is kept as it is: `openCard` reads both).
 */
export const sealSecret = (keys: CardKeys | null, base32: string) => (keys ? sealCard(keys, base32) : Promise.resolve(base32));

export async function openSecret(keys: CardKeys | null, stored: string): Promise<string | null> {
  const opened = await openCard(keys, stored);
  return opened.status === "ok" ? opened.text : null;
}

export async function twoFactorOn(db: Db, user_id: number): Promise<boolean> {
  const row = await rowOf(db, user_id);
  return Boolean(row?.enabled_at_ms);
}

export type SetupResult = { status: "ok"; secret: string; otpauth_url: string } | { status: "already_on" | "unavailable" };

/**
 * A new pending key (replacing an earlier pending one); nothing changes at sign-in yet. A
 * deployment without its card key (production without CARD_KEY) cannot key the recovery codes:
 * it offers no new two-factor (those already on keep working).
 */
export async function beginSetup(db: Db, keys: CardKeys | null, user: { id: number; account: string }, now_ms: number): Promise<SetupResult> {
  if (await twoFactorOn(db, user.id)) return { status: "already_on" };
  if (!keys) return { status: "unavailable" };
  const secret = new Secret({ size: 20 }).base32;
  const sealed = await sealSecret(keys, secret);
  const t = two_factor;
  const saved = await db
    .insert(t)
    .values({ user_id: user.id, secret: sealed, enabled_at_ms: null, last_step: 0, created_at_ms: now_ms })
    .onConflictDoUpdate({ target: t.user_id, set: { secret: sealed, last_step: 0, created_at_ms: now_ms }, setWhere: isNull(t.enabled_at_ms) })
    .returning({ user_id: t.user_id });
  // Enabled meanwhile by a parallel request: the key in force stays as it is.
  if (saved.length === 0) return { status: "already_on" };
  return { status: "ok", secret, otpauth_url: otpauthUrl(secret, user.account) };
}

/**
 * Marks `step` used, only if it is newer than the last one: two requests racing with one code
 * cannot both win.
 */
async function takeStep(db: Db, user_id: number, step: number, enabled: boolean): Promise<boolean> {
  const t = two_factor;
  const state = enabled ? isNotNull(t.enabled_at_ms) : isNull(t.enabled_at_ms);
  const taken = await db
    .update(t)
    .set({ last_step: step })
    .where(and(eq(t.user_id, user_id), state, sql`${t.last_step} < ${step}`))
    .returning({ user_id: t.user_id });
  return taken.length > 0;
}

async function takeRecoveryCode(db: Db, keys: CardKeys | null, user_id: number, code: string, now_ms: number): Promise<boolean> {
  const r = two_factor_recovery_codes;
  // The stored form is either one; each row matches only its own, so a code is still spent once.
  // Codes made under an older key of the ring still work until that key leaves it.
  const keyed = keys ? await Promise.all(keys.ring.map((k) => recoveryCodeHash(k, code))) : [];
  const hashes = [...keyed, legacyRecoveryCodeHash(code)];
  const used = await db
    .update(r)
    .set({ used_at_ms: now_ms })
    .where(and(eq(r.user_id, user_id), inArray(r.code_hash, hashes), isNull(r.used_at_ms)))
    .returning({ id: r.id });
  return used.length > 0;
}

export type SecondFactor = "off" | "missing" | "wrong" | "ok";

/**
 * Checks and spends a second factor: a six-digit code of the key in force, or an unused
 * recovery code. Not throttled here: callers count a "wrong" in the account's throttle.
 */
export async function spendSecondFactor(db: Db, keys: CardKeys | null, user_id: number, code: string, now_ms: number): Promise<SecondFactor> {
  const row = await rowOf(db, user_id);
  if (!row?.enabled_at_ms) return "off";
  const typed = code.trim();
  if (!typed) return "missing";
  if (looksLikeTotp(typed)) {
    // A key that cannot be opened (the card key missing or changed) matches no code.
    const secret = await openSecret(keys, row.secret);
    const step = secret === null ? null : matchStep(secret, typed, now_ms, row.last_step);
    return step !== null && (await takeStep(db, user_id, step, true)) ? "ok" : "wrong";
  }
  return (await takeRecoveryCode(db, keys, user_id, typed, now_ms)) ? "ok" : "wrong";
}

export type ProofResult =
  | { status: "ok" }
  | { status: "password_wrong" | "code_required" | "code_wrong" }
  | { status: "throttled"; retry_after_ms: number };

/**
 * What a stolen session alone must not do (move money out, choose where it goes, change the
 * password, turn two-factor off) asks for the password and, with two-factor on, a code. Both
 * are checked under ONE attempt of the account's sign-in throttle, cleared only when both are
 * right: a right password cannot reset the count of wrong codes.
 */
export async function confirmUserProofs(
  db: Db,
  keys: CardKeys | null,
  user: { id: number; account: string; password_hash: string },
  proofs: { password?: string; code: string },
  now_ms: number,
): Promise<ProofResult> {
  const key = userThrottleKey(user.account);
  const attempt = await takeAttempt(db, key, now_ms);
  if (attempt.status === "locked") return { status: "throttled", retry_after_ms: attempt.retry_after_ms };
  const status = await checkProofs(db, keys, user, proofs, now_ms);
  if (status === "ok") await succeededAttempt(db, key);
  else await failedAttempt(db, key, now_ms);
  return { status };
}

async function checkProofs(db: Db, keys: CardKeys | null, user: { id: number; password_hash: string }, proofs: { password?: string; code: string }, now_ms: number) {
  // A missing password is a wrong one; it needs no hash to say so.
  if (proofs.password !== undefined && (!proofs.password || !verifyPassword(proofs.password, user.password_hash))) return "password_wrong" as const;
  const second = await spendSecondFactor(db, keys, user.id, proofs.code, now_ms);
  if (second === "missing") return "code_required" as const;
  if (second === "wrong") return "code_wrong" as const;
  return "ok" as const;
}

export type EnableResult =
  | { status: "ok"; recovery_codes: string[] }
  | { status: "not_set_up" | "already_on" | "unavailable" | "password_wrong" | "code_wrong" }
  | { status: "throttled"; retry_after_ms: number };

/**
 * Puts the pending key in force once the login password and a code from the key are right
 * (the user is who they say, and the app holds the key), with ten fresh recovery codes, in one
 * batch. Without the password a stolen session could turn two-factor on with the thief's own
 * phone and lock the owner out (decision 116). Password and code are one attempt of the
 * account's throttle, as everywhere (068). A wallet account without a password proves itself
 * with the code alone, as when it turns two-factor off.
 */
export async function enableTwoFactor(
  db: Db,
  keys: CardKeys | null,
  user: { id: number; account: string; password_hash: string },
  proofs: { code: string; password: string },
  now_ms: number,
): Promise<EnableResult> {
  const row = await rowOf(db, user.id);
  if (!row) return { status: "not_set_up" };
  if (row.enabled_at_ms) return { status: "already_on" };
  if (!keys) return { status: "unavailable" };
  const key = userThrottleKey(user.account);
  const attempt = await takeAttempt(db, key, now_ms);
  if (attempt.status === "locked") return { status: "throttled", retry_after_ms: attempt.retry_after_ms };
  // A missing password is a wrong one; it needs no hash to say so.
  if (user.password_hash !== "" && (!proofs.password || !verifyPassword(proofs.password, user.password_hash))) {
    await failedAttempt(db, key, now_ms);
    return { status: "password_wrong" };
  }
  const secret = await openSecret(keys, row.secret);
  const step = secret === null ? null : matchStep(secret, proofs.code.trim(), now_ms, row.last_step);
  if (step === null || !(await takeStep(db, user.id, step, false))) {
    await failedAttempt(db, key, now_ms);
    return { status: "code_wrong" };
  }
  const recovery_codes = newRecoveryCodes();
  const hashes = await Promise.all(recovery_codes.map((c) => recoveryCodeHash(keys, c)));
  const r = two_factor_recovery_codes;
  const enabled = await db.batch([
    db.delete(r).where(eq(r.user_id, user.id)),
    db.insert(r).values(hashes.map((code_hash) => ({ user_id: user.id, code_hash, created_at_ms: now_ms }))),
    db
      .update(two_factor)
      .set({ enabled_at_ms: now_ms })
      .where(and(eq(two_factor.user_id, user.id), isNull(two_factor.enabled_at_ms)))
      .returning({ user_id: two_factor.user_id }),
    succeededAttempt(db, key),
  ]);
  if (enabled[2].length === 0) return { status: "already_on" };
  return { status: "ok", recovery_codes };
}

export type DisableResult = { status: "ok" } | { status: "not_on" } | Exclude<ProofResult, { status: "ok" }>;

/** Turns two-factor off with the password and a code (or a recovery code); the key and codes go. */
export async function disableTwoFactor(
  db: Db,
  keys: CardKeys | null,
  user: { id: number; account: string; password_hash: string },
  proofs: { password: string; code: string },
  now_ms: number,
): Promise<DisableResult> {
  if (!(await twoFactorOn(db, user.id))) return { status: "not_on" };
  // A wallet account that never set a password (stored "") proves itself with the code alone.
  const password = user.password_hash === "" ? undefined : proofs.password;
  const proven = await confirmUserProofs(db, keys, user, { password, code: proofs.code }, now_ms);
  if (proven.status !== "ok") return proven;
  await db.batch([
    db.delete(two_factor_recovery_codes).where(eq(two_factor_recovery_codes.user_id, user.id)),
    db.delete(two_factor).where(eq(two_factor.user_id, user.id)),
  ]);
  return { status: "ok" };
}

/** How many recovery codes are left unused, for the security page. */
export async function recoveryCodesLeft(db: Db, user_id: number): Promise<number> {
  const r = two_factor_recovery_codes;
  const [row] = await db.select({ n: sql<number>`count(*)` }).from(r).where(and(eq(r.user_id, user_id), isNull(r.used_at_ms)));
  return Number(row?.n ?? 0);
}
