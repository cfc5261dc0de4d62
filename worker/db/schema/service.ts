import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Customer-service conversations: one per user, or one per guest (identified only by the
 * SHA-256 of the token in their `pl_guest` cookie). At hand-over the guest's conversation gets
 * its `user_id` and loses its token hash, so the cookie no longer reads it.
 */
export const service_conversations = sqliteTable(
  "service_conversations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    user_id: integer("user_id"),
    guest_token_hash: text("guest_token_hash"),
    /** A guest's language (from their last open); a user's comes from users.lang. */
    guest_lang: text("guest_lang"),
    status: text("status", { enum: ["open", "closed"] }).notNull().default("open"),
    assigned_operator_id: integer("assigned_operator_id"),
    /** How far each side got: the highest message id it received (delivered) and read. */
    visitor_delivered_id: integer("visitor_delivered_id").notNull().default(0),
    visitor_read_id: integer("visitor_read_id").notNull().default(0),
    operator_delivered_id: integer("operator_delivered_id").notNull().default(0),
    operator_read_id: integer("operator_read_id").notNull().default(0),
    last_message_at_ms: integer("last_message_at_ms"),
    last_message_preview: text("last_message_preview").notNull().default(""),
    /** A guest conversation merged into the user's existing one at hand-over. */
    merged_into_id: integer("merged_into_id"),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [
    uniqueIndex("service_conversations_user_unique").on(t.user_id).where(sql`${t.user_id} IS NOT NULL`),
    uniqueIndex("service_conversations_guest_unique").on(t.guest_token_hash).where(sql`${t.guest_token_hash} IS NOT NULL`),
    index("service_conversations_inbox_idx").on(t.status, t.last_message_at_ms),
    check("service_conversations_status_check", sql`${t.status} in ('open','closed')`),
    // Exactly one owner: a user, a guest, or nobody once merged away.
    check("service_conversations_one_owner", sql`NOT (${t.user_id} IS NOT NULL AND ${t.guest_token_hash} IS NOT NULL)`),
  ],
);

/**
 * Messages. The ids are given in the order the conversation's Durable Object writes them (its
 * one sequencer), so ascending id is the conversation's order. A visitor's or operator's
 * `client_message_id` is unique per conversation and side: a resend inserts nothing.
 */
export const service_messages = sqliteTable(
  "service_messages",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    conversation_id: integer("conversation_id").notNull(),
    author: text("author", { enum: ["visitor", "operator", "system"] }).notNull(),
    client_message_id: text("client_message_id"),
    /** The operator who wrote it (operator messages only). */
    operator_id: integer("operator_id"),
    text: text("text"),
    upload_id: text("upload_id"),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [
    uniqueIndex("service_messages_client_unique").on(t.conversation_id, t.author, t.client_message_id),
    index("service_messages_conversation_idx").on(t.conversation_id, t.id),
    index("service_messages_rate_idx").on(t.conversation_id, t.author, t.created_at_ms),
    check("service_messages_author_check", sql`${t.author} in ('visitor','operator','system')`),
    check("service_messages_operator_check", sql`(${t.author} = 'operator') = (${t.operator_id} IS NOT NULL)`),
    check("service_messages_body_check", sql`${t.text} IS NOT NULL OR ${t.upload_id} IS NOT NULL`),
    check("service_messages_text_length", sql`${t.text} IS NULL OR length(${t.text}) <= 2000`),
  ],
);

/** What a conversation is about: the visitor's order, deposit, withdrawal or a promotion. */
export const service_contexts = sqliteTable(
  "service_contexts",
  {
    conversation_id: integer("conversation_id").notNull(),
    kind: text("kind", { enum: ["order", "deposit", "withdrawal", "promotion"] }).notNull(),
    ref_id: integer("ref_id").notNull(),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.conversation_id, t.kind, t.ref_id] }),
    check("service_contexts_kind_check", sql`${t.kind} in ('order','deposit','withdrawal','promotion')`),
  ],
);

/**
 * Pictures uploaded into a conversation (the image itself is a row of `uploads`). Members of
 * the conversation and operators may read them through `/files/<id>`.
 */
export const service_uploads = sqliteTable(
  "service_uploads",
  {
    upload_id: text("upload_id").primaryKey(),
    conversation_id: integer("conversation_id").notNull(),
    author: text("author", { enum: ["visitor", "operator"] }).notNull(),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [index("service_uploads_conversation_idx").on(t.conversation_id)],
);

/** Canned replies operators pick from, per language (locale key). */
export const service_canned = sqliteTable(
  "service_canned",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    lang: text("lang").notNull(),
    title: text("title").notNull(),
    text: text("text").notNull(),
    updated_by: integer("updated_by").notNull(),
    updated_at_ms: integer("updated_at_ms").notNull(),
  },
  (t) => [index("service_canned_lang_idx").on(t.lang, t.id)],
);
