/** Checks shared by the routes that move money out or choose where it goes. */
import type { Context } from "hono";
import { z } from "zod";
import { cardKeysFor, type CardKeys } from "../../domain/crypto/sealing";
import { confirmUserProofs, type ProofResult } from "../../domain/identity/two-factor";
import { moneyMovementOpen } from "../../mode";
import { ApiError, loginThrottled } from "../envelope";
import type { AppEnv } from "../types";

/**
 * The login password, as typed: never trimmed. Missing, not a string or longer than any valid
 * password reads as "" (a wrong password), so nothing huge is ever hashed.
 */
export const confirmPassword = z.unknown().optional().transform((v) => (typeof v === "string" && v.length <= 128 ? v : ""));

/**
 * A two-factor code (six digits, or a recovery code) as typed; anything else reads as "" (no
 * code), which the check refuses when two-factor is on.
 */
export const confirmCode = z.unknown().optional().transform((v) => (typeof v === "string" && v.length <= 32 ? v : ""));

/**
 * A stolen session alone must not move money out: the login password again and, with
 * two-factor on, a code, counted in the account's sign-in throttle (429 once locked, like
 * sign-in).
 */
export async function requirePassword(c: Context<AppEnv>, password: string, code: string): Promise<void> {
  proofsOrThrow(await confirmUserProofs(c.get("db"), await cardKeysOrNull(c), c.get("user"), { password, code }, Date.now()));
}

/** The localized refusal for each proof that did not hold. */
export function proofsOrThrow(r: ProofResult): void {
  if (r.status === "throttled") throw loginThrottled(r.retry_after_ms);
  if (r.status === "password_wrong") throw new ApiError("errors.password_wrong");
  if (r.status !== "ok") throw new ApiError(`errors.two_factor_${r.status}`);
}

/** A demo deployment (worker/mode.ts) takes no deposits and pays nothing out. */
export function requireMoneyMovementOpen(c: Context<AppEnv>): void {
  if (!moneyMovementOpen(c.env)) throw new ApiError("errors.demo_money_closed", 403);
}

/** The card keys, or null where none is configured (production without CARD_KEY). */
export async function cardKeysOrNull(c: Context<AppEnv>): Promise<CardKeys | null> {
  const r = await cardKeysFor(c.env);
  return r.status === "ok" ? r.keys : null;
}
