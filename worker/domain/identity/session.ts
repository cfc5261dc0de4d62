import { sha256 } from "@noble/hashes/sha2.js";
import { base64urlnopad, hex } from "@scure/base";
import { and, eq, isNull, ne, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { operators, sessions, users } from "../../db/schema";
import { UNKNOWN_CLIENT, type Client } from "./client";

export type SessionKind = "user" | "operator";

/**
 * Idle and absolute lifetimes. Users stay signed in on their phone for a week of inactivity
 * (30 days at most); operator sessions are short because they can act on other people's money.
 */
export const SESSION_POLICY: Record<SessionKind, { idle_ms: number; absolute_ms: number }> = {
  user: { idle_ms: 7 * 24 * 3600_000, absolute_ms: 30 * 24 * 3600_000 },
  operator: { idle_ms: 30 * 60_000, absolute_ms: 12 * 3600_000 },
};

/** last_seen is written at most once a minute, so reads do not turn into writes. */
const TOUCH_EVERY_MS = 60_000;

/** 256 random bits, base64url: 43 characters. */
export function newSessionToken(): string {
  return base64urlnopad.encode(crypto.getRandomValues(new Uint8Array(32)));
}

export function hashSessionToken(token: string): string {
  return hex.encode(sha256(new TextEncoder().encode(token)));
}

/** The id a session is listed and ended by: random, so it says nothing about the token. */
export function newSessionPublicId(): string {
  return base64urlnopad.encode(crypto.getRandomValues(new Uint8Array(12)));
}

/**
 * The insert for a new session, to run alone or inside a caller's batch. `step_up_at_ms`: an
 * operator session opened with the second factor proven (decision 117).
 */
export function sessionInsert(db: Db, kind: SessionKind, subject_id: number | SQL, token: string, now_ms: number, client: Client = UNKNOWN_CLIENT, step_up_at_ms: number | null = null) {
  const policy = SESSION_POLICY[kind];
  return db.insert(sessions).values({
    token_hash: hashSessionToken(token),
    public_id: newSessionPublicId(),
    device: client.device,
    ip: client.ip,
    kind,
    subject_id: subject_id as number,
    created_at_ms: now_ms,
    last_seen_at_ms: now_ms,
    idle_timeout_ms: policy.idle_ms,
    absolute_expires_at_ms: now_ms + policy.absolute_ms,
    step_up_at_ms,
  });
}

export type ResolvedSession =
  | { status: "ok"; token_hash: string; subject_id: number; expires_at_ms: number; step_up_at_ms: number | null }
  | { status: "missing" | "expired" | "revoked" };

type SubjectOf<K extends SessionKind> = K extends "user" ? typeof users.$inferSelect : typeof operators.$inferSelect;

/** A resolved session with its user or operator (null: the row is gone), or why there is none. */
export type SessionOf<K extends SessionKind> = (ResolvedSession & { status: "ok"; subject: SubjectOf<K> | null }) | Exclude<ResolvedSession, { status: "ok" }>;

/**
 * How a session is presented: its token (a header or a cookie; absent, or longer than any
 * token, is no session), or the token's hash (what the quote hubs are given, decision 106).
 */
export type SessionKey = { token: string | null | undefined } | { token_hash: string };

/**
 * The one session resolver: every way in resolves a session here, the API's middleware
 * (worker/api/middleware/auth.ts) and the routes that take an optional session, the socket
 * upgrades (worker/ws.ts, worker/service-sockets.ts), private files (worker/files.ts) and the
 * quote hubs' session cache (durable-objects/quotes/session-cache.ts). One query, the session
 * joined with its user or operator, plus a last-seen touch at most once a minute: a revoked
 * session, one idle too long or one past its absolute lifetime is refused.
 */
export async function resolveSession<K extends SessionKind>(db: Db, kind: K, key: SessionKey, now_ms: number): Promise<SessionOf<K>> {
  const token_hash = "token_hash" in key ? key.token_hash : key.token && key.token.length <= 100 ? hashSessionToken(key.token) : null;
  if (token_hash === null) return { status: "missing" };
  const subjects = kind === "user" ? users : operators;
  const [row] = await db
    .select({ session: sessions, subject: subjects })
    .from(sessions)
    .leftJoin(subjects, eq(subjects.id, sessions.subject_id))
    .where(and(eq(sessions.token_hash, token_hash), eq(sessions.kind, kind)))
    .limit(1);
  const checked = await checkSession(db, row?.session, now_ms);
  if (checked.status !== "ok") return checked;
  return { ...checked, subject: (row.subject ?? null) as SubjectOf<K> | null };
}

/**
 * Touches last_seen of the sessions among `token_hashes` that are still live (not revoked,
 * not past their idle or absolute lifetime) in ONE statement, and returns those with their new
 * expiry: a cache of sessions re-checks all of its due entries with one query.
 */
export async function touchLiveSessions(db: Db, kind: SessionKind, token_hashes: readonly string[], now_ms: number): Promise<Map<string, { subject_id: number; expires_at_ms: number }>> {
  const live = new Map<string, { subject_id: number; expires_at_ms: number }>();
  if (token_hashes.length === 0) return live;
  const rows = await db.all<{ token_hash: string; subject_id: number; idle_timeout_ms: number; absolute_expires_at_ms: number }>(sql`
    UPDATE sessions SET last_seen_at_ms = ${now_ms}
    WHERE kind = ${kind} AND revoked_at_ms IS NULL
      AND token_hash IN (SELECT value FROM json_each(${JSON.stringify(token_hashes)}))
      AND ${now_ms} < MIN(last_seen_at_ms + idle_timeout_ms, absolute_expires_at_ms)
    RETURNING token_hash, subject_id, idle_timeout_ms, absolute_expires_at_ms`);
  for (const r of rows) live.set(r.token_hash, { subject_id: r.subject_id, expires_at_ms: expiryAfterUse(r, now_ms) });
  return live;
}

/** Revoked, idle too long or past its absolute lifetime? Touches last_seen at most once a minute. */
async function checkSession(db: Db, row: typeof sessions.$inferSelect | undefined, now_ms: number): Promise<ResolvedSession> {
  if (!row) return { status: "missing" };
  if (row.revoked_at_ms !== null) return { status: "revoked" };
  const expires_at_ms = Math.min(row.last_seen_at_ms + row.idle_timeout_ms, row.absolute_expires_at_ms);
  if (now_ms >= expires_at_ms) return { status: "expired" };
  if (now_ms - row.last_seen_at_ms >= TOUCH_EVERY_MS) {
    await db.update(sessions).set({ last_seen_at_ms: now_ms }).where(eq(sessions.token_hash, row.token_hash));
  }
  return { status: "ok", token_hash: row.token_hash, subject_id: row.subject_id, expires_at_ms: expiryAfterUse(row, now_ms), step_up_at_ms: row.step_up_at_ms };
}

/** When a session used at `now_ms` expires: idle from now, never past its absolute lifetime. */
function expiryAfterUse(row: { idle_timeout_ms: number; absolute_expires_at_ms: number }, now_ms: number): number {
  return Math.min(now_ms + row.idle_timeout_ms, row.absolute_expires_at_ms);
}

export function revokeSession(db: Db, token_hash: string, now_ms: number) {
  return db
    .update(sessions)
    .set({ revoked_at_ms: now_ms })
    .where(and(eq(sessions.token_hash, token_hash), isNull(sessions.revoked_at_ms)));
}

/** Revokes every live session of a subject (an operator ending a user's sessions). */
export function revokeAllSessions(db: Db, kind: SessionKind, subject_id: number, now_ms: number) {
  return db
    .update(sessions)
    .set({ revoked_at_ms: now_ms })
    .where(and(eq(sessions.kind, kind), eq(sessions.subject_id, subject_id), isNull(sessions.revoked_at_ms)));
}

/** Revokes every live session of a subject except the one making the request. */
export function revokeOtherSessions(db: Db, kind: SessionKind, subject_id: number, keep_token_hash: string, now_ms: number) {
  return db
    .update(sessions)
    .set({ revoked_at_ms: now_ms })
    .where(
      and(
        eq(sessions.kind, kind),
        eq(sessions.subject_id, subject_id),
        ne(sessions.token_hash, keep_token_hash),
        isNull(sessions.revoked_at_ms),
      ),
    );
}
