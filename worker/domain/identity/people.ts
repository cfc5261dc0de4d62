/**
 * Operators leaving, and the incident's "end every session" (decision 137). Each change is one D1
 * batch with its audit row, so none exists without its record. `operator_id` 0 in an audit row is
 * the command line (a script run by whoever holds the deployment; `data.via` names the command).
 *
 * D1 is the truth: an ended session is refused by the next API call and the next socket upgrade at
 * once, and by the quote hubs within their re-check (decision 106). Open page sockets close only
 * when the Worker tells their objects (decision 119), so ending user sessions in bulk goes
 * through the Worker's admin route (`POST /api/admin/sessions/end`), which the
 * `npm run sessions:end` command calls; a Node script cannot reach Durable Objects.
 */
import { and, eq, gt, isNull, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { operators, sessions } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { revokeAllSessions } from "./session";
import { normalizeAccount } from "./rules";

export type DisableOperatorResult = { status: "ok"; operator_id: number; sessions_ended: number } | { status: "not_found" | "already_disabled" | "reason_required" };

/** Disables an operator (no more sign-ins) and ends their sessions, audited `operator.disable`. */
export async function disableOperator(db: Db, input: { account: string; reason: string; by_operator_id: number; via: string }, now_ms: number): Promise<DisableOperatorResult> {
  const reason = input.reason.trim();
  if (!reason) return { status: "reason_required" };
  const account = normalizeAccount(input.account);
  const operator = await db.query.operators.findFirst({ where: eq(operators.account, account) });
  if (!operator) return { status: "not_found" };
  if (operator.enabled !== 1) return { status: "already_disabled" };
  const [, ended] = await db.batch([
    db.update(operators).set({ enabled: 0 }).where(eq(operators.id, operator.id)),
    revokeAllSessions(db, "operator", operator.id, now_ms).returning({ token_hash: sessions.token_hash }),
    auditInsert(db, { operator_id: input.by_operator_id, action: "operator.disable", target: `operator:${account}`, reason, data: { via: input.via } }, now_ms),
  ]);
  return { status: "ok", operator_id: operator.id, sessions_ended: ended.length };
}

/** How many users' sessions one call of the bulk ending takes: their sockets are closed before it answers. */
export const END_SESSIONS_BATCH_USERS = 50;

export type EndSessionsScope = { all: true } | { user_id: number };
export type EndSessionsResult = {
  /** The users whose sessions this call ended (or would end), to close their sockets. */
  user_ids: number[];
  user_sessions: number;
  /** Operator sessions (with `all`: every operator's but the caller's, on the first call). */
  operator_sessions: number;
  /** Where the next call starts (`after_user_id`), or null when none is left. */
  next_after_user_id: number | null;
};

/** Live = neither revoked nor past its absolute end (an idle one is refused anyway). */
const live = (now_ms: number) => and(isNull(sessions.revoked_at_ms), gt(sessions.absolute_expires_at_ms, now_ms));

/**
 * Ends (or with `dry_run`, counts) users' live sessions: one user's, or everyone's in batches of
 * users after `after_user_id`. With `all`, the first call also ends every operator session but
 * `keep_token_hash` (the caller's, so the command can go on). One audit row per call
 * (`sessions.end`), in the batch that ends them.
 */
export async function endSessions(
  db: Db,
  input: { scope: EndSessionsScope; reason: string; operator_id: number; keep_token_hash: string; dry_run: boolean; after_user_id?: number; batch_users?: number },
  now_ms: number,
): Promise<EndSessionsResult> {
  const limit = input.batch_users ?? END_SESSIONS_BATCH_USERS;
  const after = input.after_user_id ?? 0;
  const userFilter = "user_id" in input.scope ? eq(sessions.subject_id, input.scope.user_id) : gt(sessions.subject_id, after);
  const rows = await db
    .select({ user_id: sessions.subject_id, n: sql<number>`count(*)` })
    .from(sessions)
    .where(and(eq(sessions.kind, "user"), userFilter, live(now_ms)))
    .groupBy(sessions.subject_id)
    .orderBy(sessions.subject_id)
    .limit(limit + 1);
  const more = "all" in input.scope && rows.length > limit;
  const taken = rows.slice(0, limit);
  const user_ids = taken.map((r) => r.user_id);
  const first = "all" in input.scope && after === 0;
  const operatorWhere = and(eq(sessions.kind, "operator"), ne(sessions.token_hash, input.keep_token_hash), live(now_ms));
  const next_after_user_id = more ? user_ids[user_ids.length - 1] : null;
  if (input.dry_run) {
    const user_sessions = taken.reduce((a, r) => a + Number(r.n), 0);
    const [ops] = first ? await db.select({ n: sql<number>`count(*)` }).from(sessions).where(operatorWhere) : [{ n: 0 }];
    return { user_ids, user_sessions, operator_sessions: Number(ops.n), next_after_user_id };
  }
  if (user_ids.length === 0 && !first) return { user_ids, user_sessions: 0, operator_sessions: 0, next_after_user_id: null };
  const endUsers = db
    .update(sessions)
    .set({ revoked_at_ms: now_ms })
    .where(and(eq(sessions.kind, "user"), sql`${sessions.subject_id} IN (SELECT value FROM json_each(${JSON.stringify(user_ids)}))`, live(now_ms)))
    .returning({ user_id: sessions.subject_id });
  const endOperators = db.update(sessions).set({ revoked_at_ms: now_ms }).where(first ? operatorWhere : sql`0`).returning({ token_hash: sessions.token_hash });
  const target = "user_id" in input.scope ? `user:${input.scope.user_id}` : "all";
  const [endedUsers, endedOperators] = await db.batch([
    endUsers,
    endOperators,
    auditInsert(db, { operator_id: input.operator_id, action: "sessions.end", target, reason: input.reason, data: { users: user_ids.length, after_user_id: after } }, now_ms),
  ]);
  return { user_ids, user_sessions: endedUsers.length, operator_sessions: endedOperators.length, next_after_user_id };
}
