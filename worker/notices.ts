/**
 * After an event's batch committed with its notices: tell each user's open pages the new unread
 * count (the badge, over their channel) and push the notices to their devices. Never fails the
 * caller's operation (run it with waitUntil).
 */
import { getDb } from "./db/client";
import { unreadCounts } from "./domain/notifications/centre";
import type { Env } from "./env";
import { pushNew } from "./push/send";
import { notifyUser } from "./ws";

export async function deliverNotices(env: Env, user_ids: readonly number[], created_at_ms: number): Promise<void> {
  try {
    const db = getDb(env.DB);
    const counts = await unreadCounts(db, user_ids);
    await Promise.all([...counts].map(([user_id, unread]) => notifyUser(env, user_id, { type: "notice", ...unread })));
    await pushNew(env, db, user_ids, created_at_ms);
  } catch (err) {
    console.error("deliverNotices failed", err);
  }
}
