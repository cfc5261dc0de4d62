/**
 * How the API answers about one-time codes (decision 138), for every route that sends or takes
 * one: a send answers `retry_after` (seconds until a resend is taken) and `expires_in`; a
 * refused send is a 429 with `retry_after` too, so a page's countdown always runs on the
 * server's own number.
 */
import { z } from "zod";
import { CODE_RULES, type IssueResult, type Verdict } from "../../domain/identity/one-time-codes";
import { ApiError } from "../envelope";

/** Six digits; spaces and dashes a person or a paste puts between groups are dropped. */
export const codeField = z.preprocess(
  (v) => (typeof v === "string" ? v.replace(/[\s-]/g, "") : v),
  z.string({ error: "errors.code_format" }).regex(/^\d{6}$/, "errors.code_format"),
);

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** A send that went through: when the next may be asked for, and how long the code lives. */
export function issuedAnswer(retry_after_ms: number) {
  return { retry_after: seconds(retry_after_ms), expires_in: CODE_RULES.ttl_ms / 1000 };
}

export function sendRefused(r: Exclude<IssueResult, { status: "issued" }>): ApiError {
  const retry_after = seconds(r.retry_after_ms);
  if (r.status === "resend_wait") return new ApiError("errors.code_resend_wait", 429, { seconds: retry_after }, { retry_after, retry_after_ms: r.retry_after_ms });
  return new ApiError("errors.code_limit", 429, { minutes: Math.ceil(retry_after / 60) }, { retry_after, retry_after_ms: r.retry_after_ms });
}

type Refusal = Exclude<Verdict, { status: "ok" }>["status"];

/** The message of each refused attempt: a code that is gone reads like an expired one (nothing to tell apart). */
export const CODE_REFUSAL_KEYS: Record<Refusal, string> = {
  code_wrong: "errors.code_wrong",
  code_void: "errors.code_void",
  code_expired: "errors.code_expired",
  code_missing: "errors.code_expired",
};

/** Every message a code route may answer with (tests/unit/locales-words.test.ts holds them in every language). */
export const CODE_ERROR_KEYS = [...new Set([...Object.values(CODE_REFUSAL_KEYS), "errors.code_format", "errors.code_resend_wait", "errors.code_limit"])];

export function codeRefused(v: Exclude<Verdict, { status: "ok" }>): ApiError {
  if (v.status === "code_wrong") return new ApiError(CODE_REFUSAL_KEYS.code_wrong, 200, { tries_left: v.tries_left }, { tries_left: v.tries_left });
  return new ApiError(CODE_REFUSAL_KEYS[v.status]);
}
