/**
 * After an event's batch committed with its notices: tell each user's open pages the new unread
 * count (the badge, over their channel), push the notices to their devices, and mail the sign-in
 * notices to a verified email. Never fails the
 * caller's operation (run it with waitUntil).
 */
import { getDb, type Db } from "./db/client";
import { unreadCounts } from "./domain/notifications/centre";
import type { Env } from "./env";
import { pushNew } from "./push/send";
import { notifyUser } from "../durable-objects/user-channel/channel-api";
import { logError } from "./observability/log";
import { mailNewNotices } from "./mail/notices";

export async function deliverNotices(env: Env, user_ids: readonly number[], created_at_ms: number): Promise<void> {
  await tellNoticeCounts(env, user_ids);
  await pushNew(env, getDb(env.DB), user_ids, created_at_ms);
  // Sign-in notices also reach a verified email (decision 138).
  await mailNewNotices(env, getDb(env.DB), user_ids, created_at_ms);
}

/**
 * Only the pushes: a settlement's owners already heard their results over their channel (the
 * quote hub's own message), and its notices are never mailed. `db` is the caller's counted view.
 */
export async function pushNotices(env: Env, db: Db, user_ids: readonly number[], created_at_ms: number): Promise<void> {
  await pushNew(env, db, user_ids, created_at_ms);
}

/** The users' open pages hear their new unread counts (the badge and the bell). Never throws. */
export async function tellNoticeCounts(env: Env, user_ids: readonly number[]): Promise<void> {
  try {
    const counts = await unreadCounts(getDb(env.DB), user_ids);
    await Promise.all([...counts].map(([user_id, unread]) => notifyUser(env, user_id, { type: "notice", ...unread })));
  } catch (err) {
    logError("notice.counts_failed", { err });
  }
}
