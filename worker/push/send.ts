/**
 * Sending the notices an event just wrote to the devices of their users that allowed alerts.
 * Runs after the event's batch committed (waitUntil): a push that fails, times out or is refused
 * never touches the event. A push service answering 404 or 410 says the subscription is gone
 * (RFC 8030 §7.3): it is deleted.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { notification_settings, notifications, push_subscriptions, users } from "../db/schema";
import type { NotificationKind } from "../domain/notifications/kinds";
import { paramsOf } from "../domain/notifications/centre";
import { noticeText } from "../domain/notifications/text";
import { translate } from "../i18n";
import { DEFAULT_LOCALE, localeFromLang } from "../../locales/languages";
import { encryptPush, subscriberOf } from "./ece";
import { pushEndpointAllowed } from "./endpoints";
import { refusedBy } from "../db/refusal";
import { vapidAuthorization, vapidKeys, type VapidKeys } from "./vapid";
import { logError, logWarn } from "../observability/log";

type PushEnv = { APP_ENV: string; VAPID_PRIVATE_KEY?: string; VAPID_SUBJECT?: string; PUSH_TEST_HOSTS?: string };
/** A push waits this long at the push service for an offline device (RFC 8030 TTL), then is dropped. */
const TTL_S = 24 * 60 * 60;

/** The notices written at `created_at_ms` for these users, each with every subscription that wants its kind. */
async function targets(db: Db, user_ids: readonly number[], created_at_ms: number) {
  return db
    .select({ notice: notifications, sub: push_subscriptions, lang: users.lang })
    .from(notifications)
    .innerJoin(push_subscriptions, eq(push_subscriptions.user_id, notifications.user_id))
    .innerJoin(users, eq(users.id, notifications.user_id))
    .leftJoin(notification_settings, and(eq(notification_settings.user_id, notifications.user_id), eq(notification_settings.kind, notifications.kind)))
    .where(
      and(
        sql`${notifications.user_id} IN (SELECT value FROM json_each(${JSON.stringify(user_ids)}))`,
        eq(notifications.created_at_ms, created_at_ms),
        sql`coalesce(${notification_settings.push}, 1) = 1`,
      ),
    );
}

/** The message a device shows: title, body, the page to open, and a tag so a newer one of the same kind replaces it. */
export function pushPayload(kind: NotificationKind, params: Record<string, unknown>, lang: string | null, id: number) {
  const locale = localeFromLang(lang) ?? DEFAULT_LOCALE;
  const text = noticeText({ kind, params }, locale, (key, vars) => translate(locale, `notifications.${key}`, vars), "UTC");
  return { title: text.title, body: text.body, url: text.url, tag: `${kind}:${id}`, lang: locale };
}

async function sendOne(env: PushEnv, db: Db, keys: VapidKeys, sub: typeof push_subscriptions.$inferSelect, payload: object, now_ms: number) {
  // A row stored before endpoints were checked (decision 114) is never fetched: it goes.
  if (!pushEndpointAllowed(sub.endpoint, env)) return void (await db.delete(push_subscriptions).where(eq(push_subscriptions.id, sub.id)));
  const to = subscriberOf(sub.p256dh, sub.auth);
  if (!to) return;
  const body = await encryptPush(to, new TextEncoder().encode(JSON.stringify(payload)));
  const res = await fetch(sub.endpoint, {
    method: "POST",
    headers: { authorization: await vapidAuthorization(keys, sub.endpoint, env, now_ms), "content-encoding": "aes128gcm", "content-type": "application/octet-stream", ttl: String(TTL_S), urgency: "normal" },
    body,
  });
  if (res.status === 404 || res.status === 410) await db.delete(push_subscriptions).where(eq(push_subscriptions.id, sub.id));
  else if (!res.ok) logWarn("push.refused", { status: res.status, host: new URL(sub.endpoint).host });
}

/**
 * Pushes the notices written at `created_at_ms` (the event's own time: a replayed event wrote
 * nothing new, so it finds nothing to push) for these users. Never throws.
 */
export async function pushNew(env: PushEnv, db: Db, user_ids: readonly number[], created_at_ms: number, now_ms = Date.now()): Promise<number> {
  try {
    if (user_ids.length === 0) return 0;
    const rows = await targets(db, user_ids, created_at_ms);
    if (rows.length === 0) return 0;
    const keys = await vapidKeys(env, db, now_ms);
    if (!keys) return 0;
    const sent = await Promise.allSettled(rows.map((r) => sendOne(env, db, keys, r.sub, pushPayload(r.notice.kind, paramsOf(r.notice), r.lang, r.notice.id), now_ms)));
    for (const s of sent) if (s.status === "rejected") logError("push.failed", { err: s.reason });
    return sent.filter((s) => s.status === "fulfilled").length;
  } catch (err) {
    logError("push.failed", { err });
    return 0;
  }
}

/** At most this many devices get one user's alerts (the `push_subscriptions_quota` triggers hold it). */
export const MAX_PUSH_SUBSCRIPTIONS = 5;

/**
 * Keeps a browser's subscription for `user_id` (an install signed in as someone else moves to
 * them). A sixth device of one user is refused by the triggers inside this statement, so
 * parallel subscriptions cannot pass the count together.
 */
export async function saveSubscription(db: Db, user_id: number, s: { endpoint: string; p256dh: string; auth: string; device: string }, now_ms: number): Promise<{ status: "ok" } | { status: "too_many"; max: number }> {
  try {
    await db
      .insert(push_subscriptions)
      .values({ user_id, ...s, created_at_ms: now_ms })
      .onConflictDoUpdate({ target: push_subscriptions.endpoint, set: { user_id, p256dh: s.p256dh, auth: s.auth, device: s.device, created_at_ms: now_ms } });
    return { status: "ok" };
  } catch (err) {
    if (refusedBy(err, [["push_subscriptions_limit", "too_many"] as const])) return { status: "too_many", max: MAX_PUSH_SUBSCRIPTIONS };
    throw err;
  }
}

export async function deleteSubscription(db: Db, user_id: number, endpoint: string) {
  await db.delete(push_subscriptions).where(and(eq(push_subscriptions.user_id, user_id), eq(push_subscriptions.endpoint, endpoint)));
}

/** Which kinds the user wants pushed (absent = on), and how many devices they have subscribed. */
export async function pushSettings(db: Db, user_id: number, kinds: readonly NotificationKind[]) {
  const [rows, subs] = await db.batch([
    db.select().from(notification_settings).where(eq(notification_settings.user_id, user_id)),
    db.select({ endpoint: push_subscriptions.endpoint }).from(push_subscriptions).where(eq(push_subscriptions.user_id, user_id)),
  ]);
  return { kinds: Object.fromEntries(kinds.map((k) => [k, (rows.find((r) => r.kind === k)?.push ?? 1) === 1])), endpoints: subs.map((s) => s.endpoint) };
}

export async function setPushKind(db: Db, user_id: number, kind: NotificationKind, on: boolean) {
  await db
    .insert(notification_settings)
    .values({ user_id, kind, push: on ? 1 : 0 })
    .onConflictDoUpdate({ target: [notification_settings.user_id, notification_settings.kind], set: { push: on ? 1 : 0 } });
}

