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

/**
 * The unread counts: `unread` every unread notice (the centre), `badge` those the me tab adds to
 * the chat's own unread count: all but `operator_message`, whose messages the chat already counts.
 */
export type Unread = { unread: number; badge: number };
const unreadColumns = {
  user_id: notifications.user_id,
  unread: count(),
  badge: sql<number>`sum(${notifications.kind} <> 'operator_message')`,
};

export async function unreadCount(db: Db, user_id: number): Promise<Unread> {
  const [row] = await db.select(unreadColumns).from(notifications).where(and(eq(notifications.user_id, user_id), isNull(notifications.read_at_ms))).groupBy(notifications.user_id);
  return { unread: row?.unread ?? 0, badge: Number(row?.badge ?? 0) };
}

/** Unread counts of several users in one query (a settlement batch tells each owner). */
export async function unreadCounts(db: Db, user_ids: readonly number[]): Promise<Map<number, Unread>> {
  const rows = await db
    .select(unreadColumns)
    .from(notifications)
    .where(and(sql`${notifications.user_id} IN (SELECT value FROM json_each(${JSON.stringify(user_ids)}))`, isNull(notifications.read_at_ms)))
    .groupBy(notifications.user_id);
  return new Map(
    user_ids.map((id) => {
      const r = rows.find((x) => x.user_id === id);
      return [id, { unread: r?.unread ?? 0, badge: Number(r?.badge ?? 0) }];
    }),
  );
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
