import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** What a one-time code may prove (worker/domain/identity/one-time-codes.ts). */
export const CODE_PURPOSES = ["verify_email", "verify_phone", "reset_password"] as const;

/**
 * One-time codes sent by mail or SMS (decision 138): at most ONE live code per purpose and
 * address (the primary key; a resend replaces it). Only a salted HMAC of the code is kept,
 * never the code. `tries` counts every attempt; at the limit the code is void. `user_id` is
 * who the code was sent for (NULL: a recovery start for no account, kept so that the answer
 * and every later step look the same as for a real one).
 */
export const one_time_codes = sqliteTable(
  "one_time_codes",
  {
    purpose: text("purpose", { enum: CODE_PURPOSES }).notNull(),
    address: text("address").notNull(),
    user_id: integer("user_id"),
    /** Where the code went (the verified email of a recovery; the address itself otherwise). */
    sent_to: text("sent_to").notNull().default(""),
    salt: text("salt").notNull(),
    code_hash: text("code_hash").notNull(),
    tries: integer("tries").notNull().default(0),
    sent_at_ms: integer("sent_at_ms").notNull(),
    expires_at_ms: integer("expires_at_ms").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.purpose, t.address] }),
    index("one_time_codes_expires_idx").on(t.expires_at_ms),
    check("one_time_codes_purpose_check", sql.raw(`purpose in (${CODE_PURPOSES.map((p) => `'${p}'`).join(",")})`)),
  ],
);

/**
 * Every mail and SMS the Worker sent, kept only outside production (decision 139) so that a
 * developer, the dev mailbox page (/admin/mailbox) and the tests can read them. Production
 * never writes here.
 */
export const dev_outbox = sqliteTable(
  "dev_outbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    channel: text("channel", { enum: ["email", "sms"] }).notNull(),
    to: text("to").notNull(),
    subject: text("subject").notNull().default(""),
    text: text("text").notNull(),
    html: text("html").notNull().default(""),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [
    index("dev_outbox_to_idx").on(t.to, t.id),
    check("dev_outbox_channel_check", sql`${t.channel} in ('email','sms')`),
  ],
);
