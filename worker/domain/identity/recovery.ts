/**
 * Forgot password (decision 138): a code sent to the account's VERIFIED email, then a new
 * password. Guarded like a sign-in from a new device:
 * - the start answers the same for every name, whether an account exists or not: the same
 *   statements run (one look-up, one code stored under the name typed; for no account the code
 *   is simply never sent), the same resend window and limits apply, and mail goes out after the
 *   answer;
 * - the finish sets the password by the one rule a change uses (withdrawals pause 24 h), ends
 *   EVERY session, clears no second factor (two-factor is asked at the next sign-in as before),
 *   and writes the sign-in history and a `password_reset` notice in the same batch.
 */
import type { Db } from "../../db/client";
import { checkEmail } from "../profiles/rules";
import { addressKey, recoveryTarget, type MailTarget } from "../profiles/contacts";
import { notificationInsert } from "../notifications/notify";
import { getUser, newPasswordUpdate, clearSignInAttempts, type User } from "./users";
import { issueCode, useCode, type IssueResult, type Verdict } from "./one-time-codes";
import { isValidPassword, normalizeAccount } from "./rules";
import { revokeAllSessions } from "./session";
import { attemptRecord } from "./sign-ins";
import type { Client } from "./client";

/**
 * The name a recovery is keyed by, from what was typed: an email (it has an "@") or an account
 * name. The same name always gives the same key, whether or not an account answers to it.
 */
export function recoveryKey(identifier: string): { key: string; by: { account: string } | { email_key: string } } {
  const typed = identifier.trim();
  if (typed.includes("@")) {
    const email = checkEmail(typed);
    const email_key = addressKey("email", email.status === "ok" ? email.value : typed);
    return { key: `email:${email_key}`, by: { email_key } };
  }
  const account = normalizeAccount(typed);
  return { key: `account:${account}`, by: { account } };
}

export type StartResult = { issued: IssueResult; target: MailTarget | null };

export async function startRecovery(db: Db, input: { identifier: string; network: string | null }, now_ms: number): Promise<StartResult> {
  const { key, by } = recoveryKey(input.identifier);
  const target = await recoveryTarget(db, by);
  const issued = await issueCode(db, { purpose: "reset_password", address: key, user_id: target?.user_id ?? null, sent_to: target?.email ?? "", network: input.network }, now_ms);
  return { issued, target };
}

export type FinishResult =
  | { status: "ok"; user: User }
  | { status: "password_invalid" }
  | Exclude<Verdict, { status: "ok" }>;

export async function finishRecovery(db: Db, input: { identifier: string; code: string; new_password: string; client: Client }, now_ms: number): Promise<FinishResult> {
  if (!isValidPassword(input.new_password)) return { status: "password_invalid" };
  const { key } = recoveryKey(input.identifier);
  const used = await useCode(db, { purpose: "reset_password", address: key, code: input.code }, now_ms);
  if (used.status !== "ok") return used;
  // A code for no account was never sent: guessing it right opens nothing.
  const user = used.user_id === null ? undefined : await getUser(db, used.user_id);
  if (!user) return { status: "code_missing" };
  await db.batch([
    newPasswordUpdate(db, user.id, input.new_password, now_ms),
    // Every session ends, this device's too: whoever held the old password is out.
    revokeAllSessions(db, "user", user.id, now_ms),
    clearSignInAttempts(db, user.account),
    ...attemptRecord(db, user.id, { ...input.client, method: "recovery" }, true, now_ms),
    notificationInsert(db, { user_id: user.id, kind: "password_reset", params: { device: input.client.device, ip: input.client.ip }, dedupe_key: `password_reset:${now_ms}`, now_ms }),
  ]);
  return { status: "ok", user };
}
