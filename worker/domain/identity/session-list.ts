import { and, desc, eq, gt, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { sessions } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { revokeAllSessions, revokeOtherSessions } from "./session";

export type SessionEntry = { id: string; device: string; ip: string; created_at_ms: number; last_seen_at_ms: number; current: boolean };

/** A user's live sessions (not ended, not idle too long, not past their lifetime), newest first. */
export async function listUserSessions(db: Db, user_id: number, current_token_hash: string, now_ms: number): Promise<SessionEntry[]> {
  const rows = await db
    .select()
    .from(sessions)
    .where(
      and(
        eq(sessions.kind, "user"),
        eq(sessions.subject_id, user_id),
        isNull(sessions.revoked_at_ms),
        gt(sql`min(${sessions.last_seen_at_ms} + ${sessions.idle_timeout_ms}, ${sessions.absolute_expires_at_ms})`, now_ms),
      ),
    )
    .orderBy(desc(sessions.last_seen_at_ms))
    .limit(100);
  return rows.map((r) => ({
    id: r.public_id ?? "",
    device: r.device,
    ip: r.ip,
    created_at_ms: r.created_at_ms,
    last_seen_at_ms: r.last_seen_at_ms,
    current: r.token_hash === current_token_hash,
  }));
}

export type RevokeResult = { status: "ok"; ended: number } | { status: "session_unknown" };

/**
 * Ends one of the user's own sessions by its public id; another user's id is unknown here.
 * Answers the ended session's hash, for closing what was opened under it (decision 119).
 */
export async function revokeUserSession(db: Db, user_id: number, public_id: string, now_ms: number): Promise<{ status: "ok"; ended: 1; token_hash: string } | { status: "session_unknown" }> {
  const ended = await db
    .update(sessions)
    .set({ revoked_at_ms: now_ms })
    .where(and(eq(sessions.kind, "user"), eq(sessions.subject_id, user_id), eq(sessions.public_id, public_id), isNull(sessions.revoked_at_ms)))
    .returning({ token_hash: sessions.token_hash });
  return ended.length === 1 ? { status: "ok", ended: 1, token_hash: ended[0].token_hash } : { status: "session_unknown" };
}

/** Ends every other session of the user; the one asking stays signed in. */
export async function revokeOtherUserSessions(db: Db, user_id: number, keep_token_hash: string, now_ms: number): Promise<RevokeResult> {
  const ended = await revokeOtherSessions(db, "user", user_id, keep_token_hash, now_ms).returning({ id: sessions.public_id });
  return { status: "ok", ended: ended.length };
}

/**
 * An operator ends every session of a user (a stolen phone, an account takeover), with the
 * reason in the audit log, in one batch: the record cannot exist without the change.
 */
export async function endAllUserSessions(db: Db, operator_id: number, user_id: number, reason: string, now_ms: number): Promise<{ ended: number }> {
  const [ended] = await db.batch([
    revokeAllSessions(db, "user", user_id, now_ms).returning({ id: sessions.public_id }),
    auditInsert(db, { operator_id, action: "user.sessions_end", target: `user:${user_id}`, reason }, now_ms),
  ]);
  return { ended: ended.length };
}
