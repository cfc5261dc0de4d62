/**
 * `/api/admin/mailbox`: the local outbox (decision 139), every mail and SMS the Worker sent,
 * newest first, for any signed-in operator; `to` narrows it to one address. It exists only
 * where an outbox is kept: in production the route answers 404 (and keeps nothing to show).
 * Its middleware is per route: a sub-app's `use("*")` would stand in front of every later
 * /admin route too.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { z } from "zod";
import { keepsOutbox, readOutbox } from "../../mail/outbox";
import { requireOperator } from "../middleware/auth";
import { ApiError, ok, read } from "../envelope";
import { optionalText } from "../fields";
import type { AppEnv } from "../types";

const outboxOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!keepsOutbox(c.env)) throw new ApiError("errors.not_found", 404);
  await next();
};

const Query = z.object({ to: optionalText(254) });

export const adminMailboxApi = new Hono<AppEnv>().on(["GET", "POST"], "/mailbox", outboxOnly, requireOperator, async (c) => {
  const { to } = read(c, Query);
  const rows = await readOutbox(c.get("db"), to || undefined);
  return ok(c, { items: rows.map((r) => ({ id: r.id, channel: r.channel, to: r.to, subject: r.subject, text: r.text, created_at_ms: r.created_at_ms })) });
});
