/** The user's notification centre: reading the list, the unread count, marking read. */
import { and, count, desc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { notifications } from "../../db/schema";

export const PAGE_SIZE = 20;
export type NoticeRow = typeof notifications.$inferSelect;

/** Newest first, 20 a page; `before_id` continues after the last row of the previous page. */
export async function listNotices(db: Db, user_id: number, before_id: number | null): Promise<NoticeRow[]> {
  return db
    .select()
    .from(notifications)
    .where(and(eq(notifications.user_id, user_id), before_id ? lt(notifications.id, before_id) : undefined))
    .orderBy(desc(notifications.id))
    .limit(PAGE_SIZE);
}

export async function unreadCount(db: Db, user_id: number): Promise<number> {
  const [row] = await db.select({ n: count() }).from(notifications).where(and(eq(notifications.user_id, user_id), isNull(notifications.read_at_ms)));
  return row?.n ?? 0;
}

/** Unread counts of several users in one query (a settlement batch tells each owner). */
export async function unreadCounts(db: Db, user_ids: readonly number[]): Promise<Map<number, number>> {
  const rows = await db
    .select({ user_id: notifications.user_id, n: count() })
    .from(notifications)
    .where(and(sql`${notifications.user_id} IN (SELECT value FROM json_each(${JSON.stringify(user_ids)}))`, isNull(notifications.read_at_ms)))
    .groupBy(notifications.user_id);
  return new Map(user_ids.map((id) => [id, rows.find((r) => r.user_id === id)?.n ?? 0]));
}

/**
 * Marks the user's notices read: the given ids, or all. Ids of other users' notices match
 * nothing (the user is part of the condition), so they are ignored rather than refused.
 */
export async function markRead(db: Db, user_id: number, which: { ids: number[] } | { all: true }, now_ms: number): Promise<void> {
  if ("ids" in which && which.ids.length === 0) return;
  await db
    .update(notifications)
    .set({ read_at_ms: now_ms })
    .where(and(eq(notifications.user_id, user_id), isNull(notifications.read_at_ms), "ids" in which ? inArray(notifications.id, which.ids) : undefined));
}

export function paramsOf(row: NoticeRow): Record<string, unknown> {
  try {
    const p = JSON.parse(row.params_json) as unknown;
    return p && typeof p === "object" ? (p as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
