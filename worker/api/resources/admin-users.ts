/**
 * `/api/admin/users/:id/sessions`: a user's live sessions, and ending all of them (decision
 * 119): D1 first, then every quote hub forgets them and their pages' sockets close, before the
 * answer.
 */
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { users } from "../../db/schema";
import { endSessions } from "../../domain/identity/people";
import { endAllUserSessions, listUserSessions } from "../../domain/identity/session-list";
import { requireOperator } from "../middleware/auth";
import { sessionsEnded } from "../../session-end";
import { ApiError, ok, read } from "../envelope";
import { int, optionalId, text } from "../fields";
import type { AppEnv } from "../types";

const Reason = z.object({ reason: text({ max: 500, invalid: "errors.reason_required" }) });

const flag = z.preprocess((v) => v === true || v === "1" || v === "on" || v === "true", z.boolean());
/** `npm run sessions:end`'s calls: everyone (`all`, in batches after `after_user_id`) or one user. */
const EndSessions = Reason.extend({ all: flag, user_id: optionalId(), dry_run: flag, after_user_id: int({ min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }) });

async function userIdOf(c: { req: { param(name: "id"): string }; get(key: "db"): AppEnv["Variables"]["db"] }): Promise<number> {
  const n = Number(c.req.param("id"));
  if (!Number.isSafeInteger(n) || n < 1) throw new ApiError("errors.not_found", 404);
  const user = await c.get("db").query.users.findFirst({ where: eq(users.id, n), columns: { id: true } });
  if (!user) throw new ApiError("errors.not_found", 404);
  return n;
}

export const adminUsersApi = new Hono<AppEnv>()
  .use("/sessions/end", requireOperator)
  /**
   * The incident's "end every session" (decision 137): one user's, or every user's in batches
   * (and every other operator's on the first call), audited. Each batch's sockets are closed
   * before the answer (decision 119); the command calls again from `next_after_user_id`.
   */
  .post("/sessions/end", async (c) => {
    const input = read(c, EndSessions);
    // Exactly one of the two: a missing scope must never mean everyone.
    if (input.all === (input.user_id !== null)) throw new ApiError("errors.sessions_scope");
    const db = c.get("db");
    const scope = input.all ? ({ all: true } as const) : { user_id: input.user_id! };
    const r = await endSessions(db, { scope, reason: input.reason, operator_id: c.get("operator").id, keep_token_hash: c.get("session_token_hash"), dry_run: input.dry_run, after_user_id: input.after_user_id }, Date.now());
    if (!input.dry_run) for (const user_id of r.user_ids) await sessionsEnded(c.env, db, user_id, { all: true });
    return ok(c, { dry_run: input.dry_run, users: r.user_ids.length, user_sessions: r.user_sessions, operator_sessions: r.operator_sessions, next_after_user_id: r.next_after_user_id });
  })
  .use("/users/:id/sessions", requireOperator)
  .use("/users/:id/sessions/*", requireOperator)
  .on(["GET", "POST"], "/users/:id/sessions", async (c) => {
    const user_id = await userIdOf(c);
    // No session is the operator's own: "current" is always false here.
    const list = await listUserSessions(c.get("db"), user_id, "", Date.now());
    return ok(c, { list: list.map(({ current: _, ...s }) => s) });
  })
  .post("/users/:id/sessions/end", async (c) => {
    const user_id = await userIdOf(c);
    const { reason } = read(c, Reason);
    const db = c.get("db");
    const { ended } = await endAllUserSessions(db, c.get("operator").id, user_id, reason, Date.now());
    await sessionsEnded(c.env, db, user_id, { all: true });
    return ok(c, { ended }, "errors.user_sessions_ended");
  });
