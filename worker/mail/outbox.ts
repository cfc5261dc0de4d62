/**
 * The local outbox (decisions 139, 145): on a developer's machine and in tests, every mail and
 * SMS the Worker sends is also written to `dev_outbox`, where a developer, the dev mailbox page (/admin/mailbox) and the
 * tests read it, the way a user would read their mailbox. Production and a demo never keep one:
 * the rule is here, once, and every writer and reader asks it.
 */
import { desc, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { dev_outbox } from "../db/schema";
import { appEnvOf } from "../app-env";

export type OutboxChannel = "email" | "sms";
export type OutboxEntry = typeof dev_outbox.$inferSelect;

/**
 * Local runs and tests keep their mail. Production never does, nor a demo (decision 145): a
 * demo has real visitors, and a kept copy of their codes would let one operator reset any of
 * their passwords; a demo's mail goes out through Email Service as production's does.
 */
export function keepsOutbox(env: { APP_ENV?: string }): boolean {
  const name = appEnvOf(env);
  return name === "local" || name === "test";
}

export async function keepInOutbox(db: Db, env: { APP_ENV?: string }, entry: { channel: OutboxChannel; to: string; subject: string; text: string; html?: string }, now_ms: number): Promise<boolean> {
  if (!keepsOutbox(env)) return false;
  await db.insert(dev_outbox).values({ channel: entry.channel, to: entry.to, subject: entry.subject, text: entry.text, html: entry.html ?? "", created_at_ms: now_ms });
  return true;
}

export const OUTBOX_PAGE = 50;

/** Newest first; only to `to` when given. */
export function readOutbox(db: Db, to?: string, limit = OUTBOX_PAGE): Promise<OutboxEntry[]> {
  return db
    .select()
    .from(dev_outbox)
    .where(to ? eq(dev_outbox.to, to) : undefined)
    .orderBy(desc(dev_outbox.id))
    .limit(limit);
}
