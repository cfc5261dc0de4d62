/**
 * The notification centre under `/api/user/`: `notifications` (newest first, 20 a page by
 * `before_id`, with the unread counts), `notifications/read` (`ids` or `all`), and Web Push:
 * `push/key` (the VAPID public key for `applicationServerKey`), `push/subscribe`,
 * `push/unsubscribe`, `notifications/settings` and `notifications/settings/set` (alerts per kind).
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import { NOTIFICATION_KINDS } from "../../db/schema/notifications";
import { listNotices, markRead, paramsOf, unreadCount, type NoticeRow, type Unread } from "../../domain/notifications/centre";
import { noticeText } from "../../domain/notifications/text";
import { translate } from "../../i18n";
import { requireUser } from "../middleware/auth";
import { subscriberOf } from "../../push/ece";
import { deleteSubscription, pushSettings, saveSubscription, setPushKind } from "../../push/send";
import { vapidKeys } from "../../push/vapid";
import { pushEndpointAllowed } from "../../push/endpoints";
import { notifyUser } from "../../../durable-objects/user-channel/channel-api";
import { ApiError, ok, read } from "../envelope";
import { id, optionalId, text } from "../fields";
import { afterResponse } from "../idempotency";
import type { AppEnv } from "../types";
import type { LocaleKey } from "../../../locales/languages";

/** At most this many ids in one `read` call (a page shows 20). */
const MAX_READ_IDS = 100;

/** `ids` as a JSON array or a comma-separated form field. */
const Ids = z.preprocess((v) => (typeof v === "string" ? v.split(",").filter((s) => s.trim() !== "") : v), z.array(id(), { error: "errors.invalid_field" }).max(MAX_READ_IDS, "errors.invalid_field"));
const ReadBody = z.union([z.object({ all: z.union([z.literal(1), z.literal("1"), z.literal(true)]) }), z.object({ ids: Ids })], { error: "errors.incomplete" });
const SubscribeBody = z.object({
  // https to a known push service's host, checked by pushEndpointAllowed (decision 114).
  endpoint: text({ max: 1000 }),
  p256dh: text({ max: 200 }),
  auth: text({ max: 100 }),
});
const SettingBody = z.object({
  kind: z.enum(NOTIFICATION_KINDS, { error: "errors.invalid_field" }),
  push: z.union([z.literal(0), z.literal(1), z.literal("0"), z.literal("1"), z.boolean()]).transform((v) => v === 1 || v === "1" || v === true),
});

export function noticeOut(row: NoticeRow, locale: LocaleKey) {
  const params = paramsOf(row);
  // Words in the request's language; pages render their own (the browser's time zone).
  const words = noticeText({ kind: row.kind, params }, locale, (key, vars) => translate(locale, `notifications.${key}`, vars), "UTC");
  return { id: row.id, kind: row.kind, params, title: words.title, body: words.body, url: words.url, created_at_ms: row.created_at_ms, read: row.read_at_ms !== null };
}

/** Tells the user's other open pages the new counts (the badge). */
async function tellUnread(c: Context<AppEnv>, counts: Unread) {
  await afterResponse(c, notifyUser(c.env, c.get("user").id, { type: "notice", ...counts }));
}

export const notificationsApi = new Hono<AppEnv>()
  .use("/notifications", requireUser)
  .use("/notifications/*", requireUser)
  .use("/push/*", requireUser)
  .on(["GET", "POST"], "/notifications", async (c) => {
    const { before_id } = read(c, z.object({ before_id: optionalId() }));
    const db = c.get("db");
    const user_id = c.get("user").id;
    const [rows, counts] = await Promise.all([listNotices(db, user_id, before_id), unreadCount(db, user_id)]);
    return ok(c, { list: rows.map((r) => noticeOut(r, c.get("locale"))), ...counts });
  })
  .post("/notifications/read", async (c) => {
    const body = read(c, ReadBody);
    const db = c.get("db");
    const user_id = c.get("user").id;
    await markRead(db, user_id, "all" in body ? { all: true } : { ids: body.ids }, Date.now());
    const counts = await unreadCount(db, user_id);
    await tellUnread(c, counts);
    return ok(c, counts);
  })
  .on(["GET", "POST"], "/notifications/settings", async (c) => {
    return ok(c, await pushSettings(c.get("db"), c.get("user").id, NOTIFICATION_KINDS));
  })
  .post("/notifications/settings/set", async (c) => {
    const { kind, push } = read(c, SettingBody);
    await setPushKind(c.get("db"), c.get("user").id, kind, push);
    return ok(c, await pushSettings(c.get("db"), c.get("user").id, NOTIFICATION_KINDS));
  })
  .on(["GET", "POST"], "/push/key", async (c) => {
    const keys = await vapidKeys(c.env, c.get("db"), Date.now());
    if (!keys) throw new ApiError("errors.push_unavailable");
    return ok(c, { public_key: keys.public_key });
  })
  .post("/push/subscribe", async (c) => {
    const s = read(c, SubscribeBody);
    if (!subscriberOf(s.p256dh, s.auth)) throw new ApiError("errors.invalid_field", 200, { field: "p256dh" }, { field: "p256dh" });
    // Only a known push service's host: the Worker will POST to this URL (decision 114).
    if (!pushEndpointAllowed(s.endpoint, c.env)) throw new ApiError("errors.push_endpoint_unknown");
    const device = (c.req.header("user-agent") ?? "").slice(0, 200);
    const saved = await saveSubscription(c.get("db"), c.get("user").id, { ...s, device }, Date.now());
    if (saved.status === "too_many") throw new ApiError("errors.push_subscriptions_limit", 200, { max: saved.max });
    return ok(c, await pushSettings(c.get("db"), c.get("user").id, NOTIFICATION_KINDS));
  })
  .post("/push/unsubscribe", async (c) => {
    const { endpoint } = read(c, z.object({ endpoint: text({ max: 1000 }) }));
    await deleteSubscription(c.get("db"), c.get("user").id, endpoint);
    return ok(c, await pushSettings(c.get("db"), c.get("user").id, NOTIFICATION_KINDS));
  });
