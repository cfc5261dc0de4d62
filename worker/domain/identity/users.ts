import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { invite_codes, users } from "../../db/schema";
import { hashPassword, needsRehash, verifyAgainstDummy, verifyPassword } from "./password";
import { isValidAccount, isValidPassword, newInviteCode, normalizeAccount, normalizeInviteCode } from "./rules";
import { hashSessionToken, newSessionToken, revokeOtherSessions, sessionInsert } from "./session";
import { failedAttempt, succeededAttempt, takeAttempt, userThrottleKey } from "./throttle";
import { confirmUserProofs, spendSecondFactor } from "./two-factor";
import type { CardKeys } from "../crypto/sealing";
import type { LocaleKey } from "../../../locales/languages";
import { userAccountInserts } from "../ledger/accounts";
import { UNKNOWN_CLIENT, type Client, type SignInClient } from "./client";
import { attemptRecord, firstDevice, recordFailedSignIn, signInRecords } from "./sign-ins";

/** Scripts and tests that pass no client sign in as an unknown password client. */
const NO_CLIENT: SignInClient = { ...UNKNOWN_CLIENT, method: "password" };

export type User = typeof users.$inferSelect;

export type RegisterResult =
  | { status: "ok"; user: User; token: string }
  | { status: "account_invalid" | "password_invalid" | "account_taken" | "invite_unknown" };

/**
 * Creates the user, their own invitation code, their first session and their ledger accounts
 * in one D1 batch: either all of it exists afterwards or none of it does.
 */
export async function registerUser(
  db: Db,
  input: { account: string; password: string; invite_code: string; lang: LocaleKey | null; client?: Client },
  now_ms: number,
): Promise<RegisterResult> {
  const account = normalizeAccount(input.account);
  if (!isValidAccount(account)) return { status: "account_invalid" };
  if (!isValidPassword(input.password)) return { status: "password_invalid" };

  const invite = await db.query.invite_codes.findFirst({
    where: and(eq(invite_codes.code, normalizeInviteCode(input.invite_code)), eq(invite_codes.enabled, 1)),
  });
  if (!invite) return { status: "invite_unknown" };
  if (await db.query.users.findFirst({ where: eq(users.account, account), columns: { id: true } })) {
    return { status: "account_taken" };
  }

  const created = await createUserWithSession(
    db,
    { account, password_hash: hashPassword(input.password), inviter_id: invite.owner_user_id, invited_with_code: invite.code, lang: input.lang },
    now_ms,
    [],
    { ...(input.client ?? UNKNOWN_CLIENT), method: "password" },
  );
  return created.status === "ok" ? created : { status: "account_taken" };
}

/** What a new user row needs besides its generated parts. `password_hash` "" means none yet. */
export type NewUser = { account: string; password_hash: string; inviter_id: number | null; invited_with_code: string; lang: LocaleKey | null };

/**
 * The one way a user comes into being (registration and a wallet's first sign-in): the user,
 * their own invitation code, their first session and their ledger accounts in one D1 batch,
 * with the caller's `alongside` statements, so all of it exists afterwards or none of it does.
 */
export async function createUserWithSession(
  db: Db,
  input: NewUser,
  now_ms: number,
  alongside: BatchItem<"sqlite">[] = [],
  client: SignInClient = NO_CLIENT,
): Promise<{ status: "ok"; user: User; token: string } | { status: "account_taken" }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const own_code = newInviteCode();
    const token = newSessionToken();
    const user_id = sql`(SELECT id FROM users WHERE account = ${input.account})`;
    try {
      const [inserted] = await db.batch([
        db
          .insert(users)
          .values({ ...input, invite_code: own_code, created_at_ms: now_ms, password_changed_at_ms: now_ms })
          .returning(),
        db.insert(invite_codes).values({ code: own_code, owner_user_id: user_id, created_at_ms: now_ms }),
        sessionInsert(db, "user", user_id, token, now_ms, client),
        ...userAccountInserts(db, user_id, now_ms),
        // The first session's device is known from the start: no new-sign-in notice for it.
        firstDevice(db, user_id, client, now_ms),
        ...attemptRecord(db, user_id, client, true, now_ms),
        ...alongside,
      ]);
      return { status: "ok", user: inserted[0], token };
    } catch (err) {
      if (isUniqueViolation(err, "users.account")) return { status: "account_taken" };
      if (isUniqueViolation(err, "invite_codes.code") || isUniqueViolation(err, "users.invite_code")) continue;
      throw err;
    }
  }
  throw new Error("could not allocate a unique invitation code");
}

export type LoginResult =
  | { status: "ok"; user: User; token: string }
  | { status: "failed" }
  | { status: "need_2fa" }
  | { status: "throttled"; retry_after_ms: number };

/**
 * Password sign-in. With two-factor on, a right password without a code answers "need_2fa"
 * and issues nothing; its attempt stays counted (only a full sign-in clears the count), so
 * a known password does not buy unlimited code guesses.
 */
export async function loginUser(db: Db, input: { account: string; password: string; code?: string; keys: CardKeys | null; client?: Client }, now_ms: number): Promise<LoginResult> {
  const client: SignInClient = { ...(input.client ?? UNKNOWN_CLIENT), method: "password" };
  const account = normalizeAccount(input.account);
  const attempt = await takeSignInAttempt(db, account, now_ms);
  if (attempt.status === "throttled") return attempt;

  const user = await db.query.users.findFirst({ where: eq(users.account, account) });
  // Unknown accounts, and wallet accounts without a password (""), cost one hash too, so
  // timing does not tell which accounts exist or how they sign in.
  const valid = user && hasPassword(user) ? verifyPassword(input.password, user.password_hash) : verifyAgainstDummy(input.password);
  if (!user || !valid) return refuseSignIn(db, account, now_ms, client);
  const second = await spendSecondFactor(db, input.keys, user.id, input.code ?? "", now_ms);
  if (second === "missing") return { status: "need_2fa" };
  if (second === "wrong") return refuseSignIn(db, account, now_ms, client);
  return openSession(db, user, now_ms, rehashOnLogin(db, user, input.password), client);
}

/**
 * The first step of every sign-in, by password or by wallet: one attempt from the account's
 * throttle, taken before any proof is checked.
 */
export async function takeSignInAttempt(db: Db, account: string, now_ms: number): Promise<{ status: "taken" } | { status: "throttled"; retry_after_ms: number }> {
  const attempt = await takeAttempt(db, userThrottleKey(account), now_ms);
  return attempt.status === "locked" ? { status: "throttled", retry_after_ms: attempt.retry_after_ms } : { status: "taken" };
}

/** A refused proof keeps its attempt; the one that fills the window locks the account. */
export async function refuseSignIn(db: Db, account: string, now_ms: number, client: SignInClient = NO_CLIENT): Promise<{ status: "failed" }> {
  await failedAttempt(db, userThrottleKey(account), now_ms);
  await recordFailedSignIn(db, account, client, now_ms);
  return { status: "failed" };
}

/** The statement that clears an account's throttle once its owner has proven who they are. */
export function clearSignInAttempts(db: Db, account: string) {
  return succeededAttempt(db, userThrottleKey(account));
}

/**
 * A new session for a user who has proven who they are, in one batch with `alongside` and the
 * sign-in's records (history, and a notice for a device not seen before).
 */
export async function openSession(db: Db, user: User, now_ms: number, alongside: BatchItem<"sqlite">[] = [], client: SignInClient = NO_CLIENT) {
  const token = newSessionToken();
  const records = await signInRecords(db, user.id, client, now_ms);
  await db.batch([sessionInsert(db, "user", user.id, token, now_ms, client), clearSignInAttempts(db, user.account), ...records, ...alongside]);
  return { status: "ok" as const, user, token };
}

/**
 * A hash stored the old way is rewritten while the password is at hand, so stored hashes
 * migrate as users sign in; a password changed meanwhile is left as it is.
 */
function rehashOnLogin(db: Db, user: User, password: string) {
  if (!needsRehash(user.password_hash)) return [];
  const rewrite = db.update(users).set({ password_hash: hashPassword(password) });
  return [rewrite.where(and(eq(users.id, user.id), eq(users.password_hash, user.password_hash)))];
}

export const WITHDRAW_PAUSE_AFTER_PASSWORD_CHANGE_MS = 24 * 3600_000;

export type ChangePasswordResult =
  | { status: "ok" }
  | { status: "old_password_wrong" | "password_invalid" | "password_same" | "code_required" | "code_wrong" }
  | { status: "throttled"; retry_after_ms: number };

/**
 * Changes the password and signs out every other session of the user, in one batch. The old
 * password (and, with two-factor on, a code) is a proof like sign-in's: one attempt of the
 * account's sign-in throttle, so a stolen session cannot guess the password here any faster
 * than a stranger at the sign-in form (decision 113).
 */
export async function changePassword(
  db: Db,
  keys: CardKeys | null,
  input: { user_id: number; old_password: string; new_password: string; code: string; keep_token_hash: string },
  now_ms: number,
): Promise<ChangePasswordResult> {
  if (!isValidPassword(input.new_password)) return { status: "password_invalid" };
  const user = await db.query.users.findFirst({ where: eq(users.id, input.user_id) });
  if (!user) return { status: "old_password_wrong" };
  // A wallet account that never had a password sets its first one with its session (and its
  // code, with two-factor on) alone (decision 059); every other change needs the current password.
  const had_password = hasPassword(user);
  const proven = await confirmUserProofs(db, keys, user, { password: had_password ? input.old_password : undefined, code: input.code }, now_ms);
  if (proven.status === "throttled") return proven;
  if (proven.status === "password_wrong") return { status: "old_password_wrong" };
  if (proven.status === "code_required" || proven.status === "code_wrong") return { status: proven.status };
  if (had_password && input.old_password === input.new_password) return { status: "password_same" };
  await db.batch([newPasswordUpdate(db, user.id, input.new_password, now_ms), revokeOtherSessions(db, "user", user.id, input.keep_token_hash, now_ms)]);
  return { status: "ok" };
}

/**
 * The one way a password is replaced (a change, and a recovery by code: decision 138), for the
 * caller's batch. Withdrawals pause for a day: if the password was stolen and changed, the owner
 * has time to notice before money can leave.
 */
export function newPasswordUpdate(db: Db, user_id: number, new_password: string, now_ms: number) {
  return db
    .update(users)
    .set({ password_hash: hashPassword(new_password), password_changed_at_ms: now_ms, withdraw_paused_until_ms: now_ms + WITHDRAW_PAUSE_AFTER_PASSWORD_CHANGE_MS })
    .where(eq(users.id, user_id));
}

/** "" is how a wallet account without a password is stored; no password ever matches it. */
export function hasPassword(user: Pick<User, "password_hash">): boolean {
  return user.password_hash !== "";
}

export async function setUserLanguage(db: Db, user_id: number, lang: LocaleKey) {
  await db.update(users).set({ lang }).where(eq(users.id, user_id));
}

export async function getUser(db: Db, user_id: number): Promise<User | undefined> {
  return db.query.users.findFirst({ where: eq(users.id, user_id) });
}

/** Creates a platform invitation code (owner null), such as the demo seed's WELCOME. */
export async function ensurePlatformInviteCode(db: Db, code: string, now_ms: number) {
  await db
    .insert(invite_codes)
    .values({ code: normalizeInviteCode(code), owner_user_id: null, created_at_ms: now_ms })
    .onConflictDoNothing();
}

export function isUniqueViolation(err: unknown, column: string): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const message = String((e as { message?: unknown }).message ?? "");
    if (message.includes("UNIQUE constraint failed") && message.includes(column)) return true;
  }
  return false;
}

export { hashSessionToken };
