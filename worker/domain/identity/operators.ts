import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { operators } from "../../db/schema";
import { hashPassword, needsRehash, verifyAgainstDummy, verifyPassword } from "./password";
import { isValidAccount, isValidPassword, normalizeAccount } from "./rules";
import type { CardKeys } from "../crypto/sealing";
import { UNKNOWN_CLIENT } from "./client";
import { spendOperatorCode } from "./operator-two-factor";
import { newSessionToken, sessionInsert } from "./session";
import { failedAttempt, operatorThrottleKey, succeededAttempt, takeAttempt } from "./throttle";
import { isUniqueViolation } from "./users";
import { auditInsert } from "../audit/log";

export type Operator = typeof operators.$inferSelect;

/**
 * Operators act on other people's money, so their passwords are longer than users' (at least
 * 12 characters, on top of the user rule: a letter and a digit, at most 64).
 */
export const OPERATOR_PASSWORD_MIN = 12;

export type OperatorCredentialsProblem = "account_invalid" | "password_invalid" | "password_too_short";

/** The rules every path that creates an operator checks (the domain, the SQL printer). */
export function checkOperatorCredentials(account: string, password: string): { status: "ok"; account: string } | { status: OperatorCredentialsProblem } {
  const normalized = normalizeAccount(account);
  if (!isValidAccount(normalized)) return { status: "account_invalid" };
  if (password.length < OPERATOR_PASSWORD_MIN) return { status: "password_too_short" };
  if (!isValidPassword(password)) return { status: "password_invalid" };
  return { status: "ok", account: normalized };
}

/**
 * A new operator, and its audit row (`operator.create`) in the same batch (decision 137).
 * `audit.operator_id` 0 is the command line (no operator acted); `via` names the command.
 */
export async function createOperator(
  db: Db,
  input: { account: string; password: string; audit?: { operator_id: number; via: string; reason?: string } },
  now_ms: number,
): Promise<{ status: "ok"; operator: Operator } | { status: OperatorCredentialsProblem | "account_taken" }> {
  const checked = checkOperatorCredentials(input.account, input.password);
  if (checked.status !== "ok") return checked;
  const account = checked.account;
  const audit = input.audit ?? { operator_id: 0, via: "createOperator" };
  try {
    const [[operator]] = await db.batch([
      db.insert(operators).values({ account, password_hash: hashPassword(input.password), created_at_ms: now_ms }).returning(),
      auditInsert(db, { operator_id: audit.operator_id, action: "operator.create", target: `operator:${account}`, reason: audit.reason ?? "", data: { via: audit.via } }, now_ms),
    ]);
    return { status: "ok", operator };
  } catch (err) {
    if (isUniqueViolation(err, "operators.account")) return { status: "account_taken" };
    throw err;
  }
}

export type OperatorLoginResult =
  | { status: "ok"; operator: Operator; token: string; enrolled: boolean }
  | { status: "failed" }
  | { status: "need_2fa" }
  | { status: "throttled"; retry_after_ms: number };

/**
 * Console sign-in (decision 117): the password and, once the operator has a key, a code, under
 * ONE attempt of the operator's throttle (cleared only when both are right, as for users). A
 * right password without a code answers "need_2fa" and issues nothing. An operator without a
 * key gets an enrolment session (no confirmation stamped): it can only set one up.
 * `step_up_at_ms` is now on the step-up clock (worker/clock.ts), stamped when a code was right.
 */
export async function loginOperator(
  db: Db,
  input: { account: string; password: string; code?: string; keys: CardKeys | null },
  now_ms: number,
  step_up_at_ms: number = now_ms,
): Promise<OperatorLoginResult> {
  const account = normalizeAccount(input.account);
  const key = operatorThrottleKey(account);
  const attempt = await takeAttempt(db, key, now_ms);
  if (attempt.status === "locked") return { status: "throttled", retry_after_ms: attempt.retry_after_ms };
  const operator = await db.query.operators.findFirst({ where: eq(operators.account, account) });
  const valid = operator ? verifyPassword(input.password, operator.password_hash) : verifyAgainstDummy(input.password);
  if (!operator || !valid || operator.enabled !== 1) {
    await failedAttempt(db, key, now_ms);
    return { status: "failed" };
  }
  const factor = await spendOperatorCode(db, input.keys, operator.id, input.code ?? "", now_ms);
  // The attempt stays counted until the code is right: a known password buys no free guesses.
  if (factor === "missing") return { status: "need_2fa" };
  if (factor === "wrong") {
    await failedAttempt(db, key, now_ms);
    return { status: "failed" };
  }
  const enrolled = factor === "ok";
  const token = newSessionToken();
  const session = sessionInsert(db, "operator", operator.id, token, now_ms, UNKNOWN_CLIENT, enrolled ? step_up_at_ms : null);
  await db.batch([session, succeededAttempt(db, key), ...rehashOnLogin(db, operator, input.password)]);
  return { status: "ok", operator, token, enrolled };
}

/** As for users: an operator's hash stored the old way is rewritten at sign-in. */
function rehashOnLogin(db: Db, operator: Operator, password: string) {
  if (!needsRehash(operator.password_hash)) return [];
  const rewrite = db.update(operators).set({ password_hash: hashPassword(password) });
  return [rewrite.where(and(eq(operators.id, operator.id), eq(operators.password_hash, operator.password_hash)))];
}

/**
 * The operator a resolved session lets act outside the API's middleware (files, sockets, proofs):
 * enabled, and with a second factor proven in the session (an enrolling one reaches nothing
 * else, decision 117).
 */
export function actingOperator(session: { status: string; subject?: Operator | null; step_up_at_ms?: number | null }): Operator | null {
  if (session.status !== "ok" || !session.subject || session.subject.enabled !== 1) return null;
  return session.step_up_at_ms === null || session.step_up_at_ms === undefined ? null : session.subject;
}

export async function getOperator(db: Db, id: number): Promise<Operator | undefined> {
  return db.query.operators.findFirst({ where: eq(operators.id, id) });
}
