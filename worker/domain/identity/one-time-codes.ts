/**
 * One-time codes sent by mail or SMS (decision 138): verifying an email or a phone, and
 * recovering a forgotten password. The rules, first as pure functions (tests/unit/identity
 * checks them with properties), then the D1 steps that apply them:
 *
 * - a code is 6 digits from the CSPRNG, drawn without modulo bias;
 * - only a salted HMAC-SHA256 of it is stored, compared in constant time;
 * - it lives 10 minutes; every attempt counts, and after 5 wrong ones the code is void: the
 *   6th attempt is refused even with the right code;
 * - one live code per purpose and address: a resend replaces it, and only 60 s after the last
 *   send (the answer says how long is left, `retry_after`);
 * - sends are counted per address and per network (an hour's budget each), on the same
 *   throttle table as sign-in (worker/domain/identity/throttle.ts).
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { hex } from "@scure/base";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { CODE_PURPOSES, one_time_codes } from "../../db/schema";
import { takeAttempt, type Budget } from "./throttle";

export { CODE_PURPOSES };
export type CodePurpose = (typeof CODE_PURPOSES)[number];

export const CODE_RULES = {
  digits: 6,
  ttl_ms: 10 * 60_000,
  max_tries: 5,
  resend_after_ms: 60_000,
  /** Sends to one address (or for one recovery name) an hour: with 5 tries each, 25 guesses of a million. */
  per_address: { max: 5, window_ms: 3600_000 } satisfies Budget,
  /** Sends from one network an hour, whatever the addresses. */
  per_network: { max: 20, window_ms: 3600_000 } satisfies Budget,
} as const;

const SPACE = 10 ** CODE_RULES.digits;
/** The largest multiple of 10^6 below 2^32: draws at or above it are thrown away (no modulo bias). */
const UNBIASED_LIMIT = Math.floor(2 ** 32 / SPACE) * SPACE;

/** Six digits, uniformly: 32 random bits, redrawn in the rare case (0.02 %) they fall past the last whole million. */
export function newCode(random: () => number = randomUint32): string {
  for (;;) {
    const draw = random();
    if (draw < UNBIASED_LIMIT) return String(draw % SPACE).padStart(CODE_RULES.digits, "0");
  }
}

function randomUint32(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0];
}

export function newSalt(): string {
  return hex.encode(crypto.getRandomValues(new Uint8Array(16)));
}

/** HMAC-SHA256 keyed by the code's own salt, over purpose, address and code: a stored hash fits no other row. */
export function codeHash(salt: string, purpose: CodePurpose, address: string, code: string): string {
  const message = new TextEncoder().encode(`${purpose}\n${address}\n${code}`);
  return hex.encode(hmac(sha256, hex.decode(salt), message));
}

/**
 * Equal strings, in time that depends only on their length (public: every hash is 64 hex
 * characters): every character is looked at, differences are OR-ed together, nothing returns
 * early, so the time taken does not say how many leading characters of a guess were right.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** A code as stored. */
export type StoredCode = Pick<typeof one_time_codes.$inferSelect, "salt" | "code_hash" | "tries" | "sent_at_ms" | "expires_at_ms" | "user_id" | "sent_to">;

/** How long before another code may be sent for this purpose and address (0: now). */
export function resendWaitMs(row: Pick<StoredCode, "sent_at_ms"> | null | undefined, now_ms: number): number {
  if (!row) return 0;
  return Math.max(0, row.sent_at_ms + CODE_RULES.resend_after_ms - now_ms);
}

/** The stored form of a new code, sent at `now_ms`. */
export function storedCode(purpose: CodePurpose, address: string, code: string, salt: string, now_ms: number, who: { user_id: number | null; sent_to: string }): StoredCode {
  return { salt, code_hash: codeHash(salt, purpose, address, code), tries: 0, sent_at_ms: now_ms, expires_at_ms: now_ms + CODE_RULES.ttl_ms, ...who };
}

export type Verdict =
  | { status: "ok" }
  | { status: "code_wrong"; tries_left: number }
  | { status: "code_expired" | "code_void" | "code_missing" };

/**
 * An attempt at `row` with `code` at `now_ms`, as a pure rule: missing, expired and void codes
 * are refused before any comparison; otherwise the attempt counts (the returned `tries`) and the
 * code is compared in constant time. The D1 step below takes the attempt with one guarded
 * update first, so parallel guesses cannot pass the limit.
 */
export function judgeAttempt(row: StoredCode | null | undefined, purpose: CodePurpose, address: string, code: string, now_ms: number): { verdict: Verdict; tries: number } {
  if (!row) return { verdict: { status: "code_missing" }, tries: 0 };
  if (now_ms >= row.expires_at_ms) return { verdict: { status: "code_expired" }, tries: row.tries };
  if (row.tries >= CODE_RULES.max_tries) return { verdict: { status: "code_void" }, tries: row.tries };
  const tries = row.tries + 1;
  const right = /^\d{6}$/.test(code) && constantTimeEqual(codeHash(row.salt, purpose, address, code), row.code_hash);
  if (right) return { verdict: { status: "ok" }, tries };
  return { verdict: { status: "code_wrong", tries_left: CODE_RULES.max_tries - tries }, tries };
}

// ----- D1 -----------------------------------------------------------------------------------

export type IssueResult =
  | { status: "issued"; code: string; retry_after_ms: number; expires_at_ms: number }
  | { status: "resend_wait"; retry_after_ms: number }
  | { status: "too_many"; retry_after_ms: number };

/** The throttle keys of sends: one per purpose and address, one per network. */
export const codeAddressKey = (purpose: CodePurpose, address: string) => `code:${purpose}:${address}`;
export const codeNetworkKey = (network: string) => `code-net:${network}`;

/**
 * Issues a code for `purpose` and `address`, replacing any earlier one, unless the last was
 * sent less than 60 s ago (`resend_wait`) or the address or network has used its hour's sends
 * (`too_many`). `network` null (scripts, tests calling in-process) is not counted. The caller
 * sends the returned code; only its hash is stored.
 */
export async function issueCode(
  db: Db,
  input: { purpose: CodePurpose; address: string; user_id: number | null; sent_to: string; network: string | null },
  now_ms: number,
): Promise<IssueResult> {
  const { purpose, address } = input;
  const existing = await readCode(db, purpose, address);
  const wait_ms = resendWaitMs(existing, now_ms);
  if (wait_ms > 0) return { status: "resend_wait", retry_after_ms: wait_ms };
  if (input.network) {
    const net = await takeAttempt(db, codeNetworkKey(input.network), now_ms, CODE_RULES.per_network);
    if (net.status === "locked") return { status: "too_many", retry_after_ms: net.retry_after_ms };
  }
  const per_address = await takeAttempt(db, codeAddressKey(purpose, address), now_ms, CODE_RULES.per_address);
  if (per_address.status === "locked") return { status: "too_many", retry_after_ms: per_address.retry_after_ms };

  const code = newCode();
  const stored = storedCode(purpose, address, code, newSalt(), now_ms, { user_id: input.user_id, sent_to: input.sent_to });
  const c = one_time_codes;
  // The resend window again, in the statement: of two sends racing past the read above, one replaces.
  const written = await db
    .insert(c)
    .values({ purpose, address, ...stored })
    .onConflictDoUpdate({ target: [c.purpose, c.address], set: stored, setWhere: lt(c.sent_at_ms, now_ms - CODE_RULES.resend_after_ms + 1) })
    .returning({ sent_at_ms: c.sent_at_ms });
  if (written.length === 0) return { status: "resend_wait", retry_after_ms: resendWaitMs(await readCode(db, purpose, address), now_ms) || 1_000 };
  return { status: "issued", code, retry_after_ms: CODE_RULES.resend_after_ms, expires_at_ms: stored.expires_at_ms };
}

export function readCode(db: Db, purpose: CodePurpose, address: string): Promise<StoredCode | undefined> {
  return db.query.one_time_codes.findFirst({ where: and(eq(one_time_codes.purpose, purpose), eq(one_time_codes.address, address)) });
}

export type UseResult = { status: "ok"; user_id: number | null; sent_to: string } | Exclude<Verdict, { status: "ok" }>;

/**
 * One attempt at the live code of `purpose` and `address`. The attempt is taken first, in one
 * guarded update (live, not void): parallel guesses each take one, and none past the fifth.
 * A right code is then spent (deleted, only if it is still the code that was checked), so it
 * works once; of two racing right answers one wins.
 */
export async function useCode(db: Db, input: { purpose: CodePurpose; address: string; code: string }, now_ms: number): Promise<UseResult> {
  const { purpose, address, code } = input;
  const c = one_time_codes;
  const [taken] = await db
    .update(c)
    .set({ tries: sql`${c.tries} + 1` })
    .where(and(eq(c.purpose, purpose), eq(c.address, address), gt(c.expires_at_ms, now_ms), lt(c.tries, CODE_RULES.max_tries)))
    .returning();
  if (!taken) {
    // No attempt was taken: say why, by the same rule.
    const { verdict } = judgeAttempt(await readCode(db, purpose, address), purpose, address, code, now_ms);
    return verdict.status === "ok" || verdict.status === "code_wrong" ? { status: "code_void" } : verdict;
  }
  // The row as it was before this attempt: the pure rule decides (and agrees on the count).
  const { verdict } = judgeAttempt({ ...taken, tries: taken.tries - 1 }, purpose, address, code, now_ms);
  if (verdict.status !== "ok") return verdict;
  const spent = await db
    .delete(c)
    .where(and(eq(c.purpose, purpose), eq(c.address, address), eq(c.code_hash, taken.code_hash)))
    .returning({ user_id: c.user_id });
  if (spent.length === 0) return { status: "code_missing" };
  return { status: "ok", user_id: taken.user_id, sent_to: taken.sent_to };
}
