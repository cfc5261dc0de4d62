/**
 * Operators' second factor (decision 117): an authenticator key under the users' TOTP rules
 * (two-factor.ts: the same code check, each step once, the key sealed at rest), kept in its own
 * table, and the step-up that money routes ask for (decision 118). Operators have no recovery
 * codes: a lost phone is reset by whoever runs `npm run operator:create -- <account> --reset-two-factor`.
 */
import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { operator_two_factor, sessions } from "../../db/schema";
import { revokeAllSessions } from "./session";
import type { CardKeys } from "../crypto/sealing";
import { failedAttempt, operatorThrottleKey, succeededAttempt, takeAttempt } from "./throttle";
import { looksLikeTotp, matchStep, newTotpSecret, openSecret, otpauthUrl, sealSecret } from "./two-factor";

/** How long one confirmation of the factor opens the money routes (decision 118). */
export const STEP_UP_TTL_MS = 5 * 60_000;

/** Is a session's last confirmation (null: none yet) recent enough at `now_ms` (both on the step-up clock)? */
export function stepUpFresh(step_up_at_ms: number | null, now_ms: number): boolean {
  return step_up_at_ms !== null && now_ms - step_up_at_ms < STEP_UP_TTL_MS;
}

type Row = typeof operator_two_factor.$inferSelect;

async function rowOf(db: Db, operator_id: number): Promise<Row | undefined> {
  return db.query.operator_two_factor.findFirst({ where: eq(operator_two_factor.operator_id, operator_id) });
}

export async function operatorTwoFactorOn(db: Db, operator_id: number): Promise<boolean> {
  return Boolean((await rowOf(db, operator_id))?.enabled_at_ms);
}

export type OperatorSetupResult = { status: "ok"; secret: string; otpauth_url: string } | { status: "already_on" };

/** A new pending key for an operator enrolling (replacing an earlier pending one), answered once. */
export async function beginOperatorSetup(db: Db, keys: CardKeys | null, operator: { id: number; account: string }, now_ms: number): Promise<OperatorSetupResult> {
  const secret = newTotpSecret();
  const sealed = await sealSecret(keys, secret);
  const t = operator_two_factor;
  const saved = await db
    .insert(t)
    .values({ operator_id: operator.id, secret: sealed, enabled_at_ms: null, last_step: 0, created_at_ms: now_ms })
    .onConflictDoUpdate({ target: t.operator_id, set: { secret: sealed, last_step: 0, created_at_ms: now_ms }, setWhere: isNull(t.enabled_at_ms) })
    .returning({ operator_id: t.operator_id });
  // A key in force is never replaced or answered again here.
  if (saved.length === 0) return { status: "already_on" };
  return { status: "ok", secret, otpauth_url: otpauthUrl(secret, operator.account) };
}

/**
 * Puts `secret` in force at once, replacing any key: the seed's demo operators and
 * `operator:create`, whose runner hands the key over. Answers the otpauth URL.
 */
export async function enrolOperatorKey(db: Db, keys: CardKeys | null, operator: { id: number; account: string }, secret: string, now_ms: number): Promise<string> {
  const sealed = await sealSecret(keys, secret);
  const t = operator_two_factor;
  await db
    .insert(t)
    .values({ operator_id: operator.id, secret: sealed, enabled_at_ms: now_ms, last_step: 0, created_at_ms: now_ms })
    .onConflictDoUpdate({ target: t.operator_id, set: { secret: sealed, enabled_at_ms: now_ms, last_step: 0, created_at_ms: now_ms } });
  return otpauthUrl(secret, operator.account);
}

/**
 * A lost phone (`operator:create -- <account> --reset-two-factor`): the key goes and the
 * operator's sessions end, in one batch; the next sign-in enrols a new key.
 */
export async function resetOperatorTwoFactor(db: Db, operator_id: number, now_ms: number): Promise<void> {
  await db.batch([db.delete(operator_two_factor).where(eq(operator_two_factor.operator_id, operator_id)), revokeAllSessions(db, "operator", operator_id, now_ms)]);
}

/** Marks `step` used, only if newer than the last one (two racing requests cannot both win). */
async function takeStep(db: Db, operator_id: number, step: number, enabled: boolean): Promise<boolean> {
  const t = operator_two_factor;
  const taken = await db
    .update(t)
    .set({ last_step: step })
    .where(and(eq(t.operator_id, operator_id), enabled ? isNotNull(t.enabled_at_ms) : isNull(t.enabled_at_ms), sql`${t.last_step} < ${step}`))
    .returning({ operator_id: t.operator_id });
  return taken.length > 0;
}

/** The step a code of `row`'s key belongs to, or null (a key that cannot be opened matches nothing). */
async function stepOf(keys: CardKeys | null, row: Row, code: string, now_ms: number): Promise<number | null> {
  const typed = code.trim();
  if (!looksLikeTotp(typed)) return null;
  const secret = await openSecret(keys, row.secret);
  return secret === null ? null : matchStep(secret, typed, now_ms, row.last_step);
}

export type OperatorFactor = "off" | "missing" | "wrong" | "ok";

/** Checks and spends a code of the key in force. Not throttled here: callers count a "wrong". */
export async function spendOperatorCode(db: Db, keys: CardKeys | null, operator_id: number, code: string, now_ms: number): Promise<OperatorFactor> {
  const row = await rowOf(db, operator_id);
  if (!row?.enabled_at_ms) return "off";
  if (!code.trim()) return "missing";
  const step = await stepOf(keys, row, code, now_ms);
  return step !== null && (await takeStep(db, operator_id, step, true)) ? "ok" : "wrong";
}

/** The statement that records a confirmation on the operator's session (step-up clock). */
function markStepUp(db: Db, token_hash: string, step_up_at_ms: number) {
  return db
    .update(sessions)
    .set({ step_up_at_ms })
    .where(and(eq(sessions.token_hash, token_hash), eq(sessions.kind, "operator"), isNull(sessions.revoked_at_ms)));
}

type Throttled = { status: "throttled"; retry_after_ms: number };
export type OperatorEnableResult = { status: "ok" } | { status: "not_set_up" | "already_on" | "code_wrong" } | Throttled;

/**
 * Puts the pending key in force once a code from it is right (the app holds it), and counts as
 * the session's first confirmation: the enrolment session becomes a full one. The code counts
 * in the operator's sign-in throttle.
 */
export async function enableOperatorTwoFactor(
  db: Db,
  keys: CardKeys | null,
  operator: { id: number; account: string },
  session: { token_hash: string; step_up_at_ms: number },
  code: string,
  now_ms: number,
): Promise<OperatorEnableResult> {
  const row = await rowOf(db, operator.id);
  if (!row) return { status: "not_set_up" };
  if (row.enabled_at_ms) return { status: "already_on" };
  const key = operatorThrottleKey(operator.account);
  const attempt = await takeAttempt(db, key, now_ms);
  if (attempt.status === "locked") return { status: "throttled", retry_after_ms: attempt.retry_after_ms };
  const step = await stepOf(keys, row, code, now_ms);
  if (step === null || !(await takeStep(db, operator.id, step, false))) {
    await failedAttempt(db, key, now_ms);
    return { status: "code_wrong" };
  }
  const t = operator_two_factor;
  const [enabled] = await db.batch([
    db
      .update(t)
      .set({ enabled_at_ms: now_ms })
      .where(and(eq(t.operator_id, operator.id), isNull(t.enabled_at_ms)))
      .returning({ operator_id: t.operator_id }),
    markStepUp(db, session.token_hash, session.step_up_at_ms),
    succeededAttempt(db, key),
  ]);
  return enabled.length === 0 ? { status: "already_on" } : { status: "ok" };
}

export type StepUpResult = { status: "ok" } | { status: "not_on" | "code_required" | "code_wrong" } | Throttled;

/**
 * A fresh confirmation for the money routes: one code of the key in force, under the
 * operator's sign-in throttle (a stolen session cannot guess codes faster than a stranger), then
 * stamped on this session alone.
 */
export async function stepUpOperator(
  db: Db,
  keys: CardKeys | null,
  operator: { id: number; account: string },
  session: { token_hash: string; step_up_at_ms: number },
  code: string,
  now_ms: number,
): Promise<StepUpResult> {
  const key = operatorThrottleKey(operator.account);
  const attempt = await takeAttempt(db, key, now_ms);
  if (attempt.status === "locked") return { status: "throttled", retry_after_ms: attempt.retry_after_ms };
  const factor = await spendOperatorCode(db, keys, operator.id, code, now_ms);
  if (factor === "ok") {
    await db.batch([markStepUp(db, session.token_hash, session.step_up_at_ms), succeededAttempt(db, key)]);
    return { status: "ok" };
  }
  // As for users: every refused proof keeps its attempt.
  await failedAttempt(db, key, now_ms);
  return { status: factor === "off" ? "not_on" : factor === "missing" ? "code_required" : "code_wrong" };
}
