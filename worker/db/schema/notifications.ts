import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Everything the notification centre can report. Each kind has words in every language
 * (locales/<lng>/notifications.json `kind.<kind>`), and a test enumerates them. The list lives
 * with the table because the table's CHECK is built from it.
 */
export const NOTIFICATION_KINDS = [
  "deposit_credited",
  "deposit_rejected",
  "withdrawal_paid",
  "withdrawal_rejected",
  "orders_settled",
  "new_sign_in",
  "limit_reached",
  "operator_message",
  "password_reset",
] as const;

/**
 * The user's notification centre: one row per thing that happened to them. Rows are written
 * in the same D1 batch as the event they report (a credited deposit, a settled order...), so a
 * notification never announces something that did not happen. `dedupe_key` makes a replayed
 * event write nothing twice; `params_json` holds what the words need (amounts as micro-unit
 * strings, ids), never the words themselves, so each reader sees them in their own language.
 */
export const notifications = sqliteTable(
  "notifications",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    user_id: integer("user_id").notNull(),
    kind: text("kind", { enum: NOTIFICATION_KINDS }).notNull(),
    params_json: text("params_json").notNull().default("{}"),
    dedupe_key: text("dedupe_key").notNull(),
    created_at_ms: integer("created_at_ms").notNull(),
    read_at_ms: integer("read_at_ms"),
  },
  (t) => [
    uniqueIndex("notifications_dedupe_unique").on(t.user_id, t.dedupe_key),
    index("notifications_user_idx").on(t.user_id, t.id),
    check("notifications_kind_check", sql.raw(`kind in (${NOTIFICATION_KINDS.map((k) => `'${k}'`).join(",")})`)),
  ],
);
