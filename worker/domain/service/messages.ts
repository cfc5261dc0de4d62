import { and, count, desc, eq, gt, lt, min, sql, asc } from "drizzle-orm";
import { d1Statements, type Db } from "../../db/client";
import { operators, service_conversations, service_messages, service_uploads } from "../../db/schema";
import { isMember, type Conversation, type Visitor } from "./conversations";
import { deliveryState, otherSide, previewOf, RATE_LIMIT, rateCheck, type Author, type Side } from "./rules";

export type MessageRow = typeof service_messages.$inferSelect & { operator_name: string | null };

/** A message as either side sees it (the wire shape of docs/customer-service.md). */
export type MessageView = {
  id: number;
  conversation_id: number;
  client_message_id: string | null;
  author: Author;
  operator_name: string | null;
  text: string | null;
  image_url: string | null;
  created_at_ms: number;
  state: "sent" | "delivered" | "read";
};

/** How far the side opposite `viewer` got (what the viewer's own messages show). */
export function peerProgress(c: Conversation, viewer: Side) {
  return viewer === "visitor"
    ? { delivered_id: c.operator_delivered_id, read_id: c.operator_read_id }
    : { delivered_id: c.visitor_delivered_id, read_id: c.visitor_read_id };
}

export function messageView(m: MessageRow, peer: { delivered_id: number; read_id: number }): MessageView {
  return {
    id: m.id,
    conversation_id: m.conversation_id,
    client_message_id: m.client_message_id,
    author: m.author,
    operator_name: m.operator_name,
    text: m.text,
    image_url: m.upload_id ? `/files/${m.upload_id}` : null,
    created_at_ms: m.created_at_ms,
    state: deliveryState(m.id, peer),
  };
}

const withOperator = { ...getColumns(), operator_name: operators.account };
function getColumns() {
  const { id, conversation_id, author, client_message_id, operator_id, text, upload_id, created_at_ms } = service_messages;
  return { id, conversation_id, author, client_message_id, operator_id, text, upload_id, created_at_ms };
}

/**
 * One page of history, ascending by id: the newest `limit`, or those before `before_id`
 * (paging backwards), or those after `after_id` (catching up after a reconnect).
 */
export async function listMessages(db: Db, conversation_id: number, opts: { before_id?: number; after_id?: number; limit: number }): Promise<{ rows: MessageRow[]; has_more: boolean }> {
  const forward = opts.after_id !== undefined;
  const bound = forward ? gt(service_messages.id, opts.after_id!) : opts.before_id !== undefined ? lt(service_messages.id, opts.before_id) : undefined;
  const rows = await db
    .select(withOperator)
    .from(service_messages)
    .leftJoin(operators, eq(operators.id, service_messages.operator_id))
    .where(and(eq(service_messages.conversation_id, conversation_id), bound))
    .orderBy(forward ? asc(service_messages.id) : desc(service_messages.id))
    .limit(opts.limit + 1);
  const has_more = rows.length > opts.limit;
  const page = rows.slice(0, opts.limit);
  return { rows: forward ? page : page.reverse(), has_more };
}

/** Messages from the other side that `viewer` has not read yet. */
export async function unreadFor(db: Db, c: Conversation, viewer: Side): Promise<number> {
  const read_id = viewer === "visitor" ? c.visitor_read_id : c.operator_read_id;
  const [row] = await db
    .select({ n: count() })
    .from(service_messages)
    .where(and(eq(service_messages.conversation_id, c.id), eq(service_messages.author, otherSide(viewer)), gt(service_messages.id, read_id)));
  return row?.n ?? 0;
}

export type NewMessage = {
  conversation_id: number;
  /** Who writes on the visitor side (checked against the conversation's owner); null for operators. */
  member: Visitor | null;
  author: Side;
  client_message_id: string;
  operator_id: number | null;
  text: string | null;
  upload_id: string | null;
};

export type Unread = { visitor: number; operator: number };
const NO_CHANGE: Unread = { visitor: 0, operator: 0 };

export type SendResult =
  /** `unread`: each side's unread count right after this message (zeros for a duplicate, which changes nothing). */
  | { status: "ok"; message: MessageRow; duplicate: boolean; conversation: Conversation; unread: Unread }
  | { status: "rate_limited"; retry_after_ms: number }
  | { status: "closed" | "not_found" | "picture_unknown" };

function byClientId(db: Db, m: Pick<NewMessage, "conversation_id" | "author" | "client_message_id">) {
  return db
    .select(withOperator)
    .from(service_messages)
    .leftJoin(operators, eq(operators.id, service_messages.operator_id))
    .where(and(eq(service_messages.conversation_id, m.conversation_id), eq(service_messages.author, m.author), eq(service_messages.client_message_id, m.client_message_id)))
    .limit(1);
}

function recentVisitorQuery(db: Db, conversation_id: number, now_ms: number) {
  return db
    .select({ count: count(), oldest_ms: min(service_messages.created_at_ms) })
    .from(service_messages)
    .where(and(eq(service_messages.conversation_id, conversation_id), eq(service_messages.author, "visitor"), gt(service_messages.created_at_ms, now_ms - RATE_LIMIT.window_ms)));
}

/**
 * Stores one message. Runs inside the conversation's Durable Object, one at a time, so the
 * ids D1 gives are the conversation's order. The common case is one D1 round trip: the insert
 * carries its own conditions (the conversation exists, an operator writes only while it is open,
 * a visitor is under the rate limit, the client id is new), and only a refused insert reads
 * why: a stored client id answers the stored message (duplicate) and changes nothing.
 */
export async function storeMessage(db: Db, m: NewMessage, operator_name: string | null, now_ms: number, retried = false): Promise<SendResult> {
  const stored = await tryInsert(db, m, now_ms);
  if (stored) return { status: "ok", message: { ...stored.message, operator_name }, duplicate: false, conversation: stored.conversation, unread: stored.unread };
  const [[conversation], [existing], [recent], [picture]] = await db.batch([
    db.select().from(service_conversations).where(eq(service_conversations.id, m.conversation_id)),
    byClientId(db, m),
    recentVisitorQuery(db, m.conversation_id, now_ms),
    db.select({ id: service_uploads.upload_id }).from(service_uploads).where(and(eq(service_uploads.upload_id, m.upload_id ?? ""), eq(service_uploads.conversation_id, m.conversation_id))),
  ]);
  // Someone else's conversation is the same not_found as none at all.
  if (!conversation || conversation.merged_into_id !== null || (m.member && !isMember(conversation, m.member))) return { status: "not_found" };
  if (existing) return { status: "ok", message: existing, duplicate: true, conversation, unread: NO_CHANGE };
  if (m.upload_id !== null && !picture) return { status: "picture_unknown" };
  if (m.author === "operator" && conversation.status === "closed") return { status: "closed" };
  const limited = m.author === "visitor" ? rateCheck({ count: recent?.count ?? 0, oldest_ms: recent?.oldest_ms ?? null }, now_ms) : { status: "ok" as const };
  if (limited.status !== "ok") return limited;
  // The window moved on between the two reads: one more try.
  return retried ? { status: "not_found" } : storeMessage(db, m, operator_name, now_ms, true);
}

/** The conditional insert, the conversation's last-message update (only if it inserted) and both sides' unread counts, in one batch. */
async function tryInsert(db: Db, m: NewMessage, now_ms: number): Promise<{ message: MessageRow; conversation: Conversation; unread: Unread } | null> {
  const c = m.conversation_id;
  const user_id = m.member?.kind === "user" ? m.member.user_id : null;
  const token_hash = m.member?.kind === "guest" ? m.member.token_hash : null;
  const [inserted, updated, unread] = await db.$client.batch(
    d1Statements(db, [
      sql`INSERT INTO service_messages (conversation_id, author, client_message_id, operator_id, text, upload_id, created_at_ms)
          SELECT ${c}, ${m.author}, ${m.client_message_id}, ${m.operator_id}, ${m.text}, ${m.upload_id}, ${now_ms}
          WHERE EXISTS (SELECT 1 FROM service_conversations WHERE id = ${c} AND merged_into_id IS NULL AND (${m.author} = 'visitor' OR status = 'open')
                        AND (${m.member === null ? 1 : 0} = 1 OR user_id = ${user_id} OR guest_token_hash = ${token_hash}))
            AND (${m.upload_id} IS NULL OR EXISTS (SELECT 1 FROM service_uploads WHERE upload_id = ${m.upload_id} AND conversation_id = ${c}))
            AND (${m.author} <> 'visitor' OR (SELECT count(*) FROM service_messages WHERE conversation_id = ${c} AND author = 'visitor' AND created_at_ms > ${now_ms - RATE_LIMIT.window_ms}) < ${RATE_LIMIT.messages})
          ON CONFLICT DO NOTHING RETURNING *`,
      // changes(): rows of the statement just before (the insert), so nothing moves for a refused one.
      // A visitor writing reopens a closed conversation; operators reopen explicitly.
      sql`UPDATE service_conversations SET status = CASE WHEN ${m.author} = 'visitor' THEN 'open' ELSE status END,
          last_message_preview = ${previewOf(m.text)}, last_message_at_ms = ${now_ms}
          WHERE id = ${c} AND changes() = 1 RETURNING *`,
      sql`SELECT (SELECT count(*) FROM service_messages WHERE conversation_id = c.id AND author = 'operator' AND id > c.visitor_read_id) AS visitor,
                 (SELECT count(*) FROM service_messages WHERE conversation_id = c.id AND author = 'visitor' AND id > c.operator_read_id) AS operator
          FROM service_conversations c WHERE c.id = ${c}`,
    ]),
  );
  const message = inserted.results[0] as MessageRow | undefined;
  const conversation = updated.results[0] as Conversation | undefined;
  if (!message || !conversation) return null;
  const counts = unread.results[0] as Unread;
  return { message, conversation, unread: { visitor: Number(counts.visitor), operator: Number(counts.operator) } };
}

/**
 * Records how far `reader` got (delivered or read, up to a message id). Never moves backwards,
 * and never past the conversation's last message. Reading implies delivery.
 */
export async function recordProgress(db: Db, conversation_id: number, reader: Side, state: "delivered" | "read", up_to_id: number): Promise<Conversation | undefined> {
  const delivered = reader === "visitor" ? service_conversations.visitor_delivered_id : service_conversations.operator_delivered_id;
  const read = reader === "visitor" ? service_conversations.visitor_read_id : service_conversations.operator_read_id;
  const last = sql`(SELECT coalesce(max(id), 0) FROM service_messages WHERE conversation_id = ${conversation_id})`;
  const capped = sql`min(${up_to_id}, ${last})`;
  const set: Record<string, unknown> = { [delivered.name]: sql`max(${delivered}, ${capped})` };
  if (state === "read") set[read.name] = sql`max(${read}, ${capped})`;
  const [row] = await db.update(service_conversations).set(set).where(eq(service_conversations.id, conversation_id)).returning();
  return row;
}

/** Links an uploaded picture to a conversation, so its members may see it. */
export async function linkUpload(db: Db, upload_id: string, conversation_id: number, author: Side, now_ms: number) {
  await db.insert(service_uploads).values({ upload_id, conversation_id, author, created_at_ms: now_ms });
}

/** The conversation a chat picture belongs to, if it is one. */
export async function conversationOfUpload(db: Db, upload_id: string): Promise<number | null> {
  const row = await db.query.service_uploads.findFirst({ where: eq(service_uploads.upload_id, upload_id) });
  return row?.conversation_id ?? null;
}
