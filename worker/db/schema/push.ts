import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { NOTIFICATION_KINDS } from "./notifications";

/**
 * Web Push subscriptions (RFC 8030): one row per browser install that allowed alerts, owned by
 * one user. `endpoint` is the push service's URL for that install (unique: an install signed in
 * as another user moves to them); `p256dh` and `auth` are its keys (base64url), needed to
 * encrypt each message (RFC 8291). `device` is the browser and system, for the user's eyes.
 */
export const push_subscriptions = sqliteTable(
  "push_subscriptions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    user_id: integer("user_id").notNull(),
    endpoint: text("endpoint").notNull(),
    p256dh: text("p256dh").notNull(),
    auth: text("auth").notNull(),
    device: text("device").notNull().default(""),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [uniqueIndex("push_subscriptions_endpoint_unique").on(t.endpoint), index("push_subscriptions_user_idx").on(t.user_id)],
);

/**
 * Which kinds a user wants as alerts on their devices. No row means on: a user who turned
 * alerts on gets every kind until they switch one off. The centre lists every kind regardless.
 */
export const notification_settings = sqliteTable(
  "notification_settings",
  {
    user_id: integer("user_id").notNull(),
    kind: text("kind", { enum: NOTIFICATION_KINDS }).notNull(),
    push: integer("push").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.user_id, t.kind] }),
    check("notification_settings_push_check", sql`${t.push} in (0, 1)`),
    check("notification_settings_kind_check", sql.raw(`kind in (${NOTIFICATION_KINDS.map((k) => `'${k}'`).join(",")})`)),
  ],
);

/**
 * The VAPID key pair (RFC 8292) of a deployment that has no `VAPID_PRIVATE_KEY` secret, made on
 * first use: local runs and tests only (worker/push/vapid.ts never makes one in production).
 * One row (id 1).
 */
export const push_vapid_local = sqliteTable(
  "push_vapid_local",
  {
    id: integer("id").primaryKey(),
    private_jwk: text("private_jwk").notNull(),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [check("push_vapid_local_one_row", sql`${t.id} = 1`)],
);
