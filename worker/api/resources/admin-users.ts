/**
 * `/api/admin/users/:id/sessions`: a user's live sessions, and ending all of them (decision
 * 119): D1 first, then every quote hub forgets them and their pages' sockets close, before the
 * answer.
 */
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { users } from "../../db/schema";
import { endAllUserSessions, listUserSessions } from "../../domain/identity/session-list";
import { requireOperator } from "../../middleware/auth";
import { sessionsEnded } from "../../session-end";
import { ApiError, ok, read } from "../envelope";
import { text } from "../fields";
import type { AppEnv } from "../types";

const Reason = z.object({ reason: text({ max: 500, invalid: "errors.reason_required" }) });

async function userIdOf(c: { req: { param(name: "id"): string }; get(key: "db"): AppEnv["Variables"]["db"] }): Promise<number> {
  const n = Number(c.req.param("id"));
  if (!Number.isSafeInteger(n) || n < 1) throw new ApiError("errors.not_found", 404);
  const user = await c.get("db").query.users.findFirst({ where: eq(users.id, n), columns: { id: true } });
  if (!user) throw new ApiError("errors.not_found", 404);
  return n;
}

export const adminUsersApi = new Hono<AppEnv>()
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
