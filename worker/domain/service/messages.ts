import { and, count, desc, eq, gt, isNull, lt, min, sql, asc } from "drizzle-orm";
import type { Db } from "../../db/client";
import { notifications, operators, service_conversations, service_messages, service_uploads } from "../../db/schema";
import { isMember, type Conversation, type Visitor } from "./conversations";
import { deliveryState, otherSide, previewOf, RATE_LIMIT, rateCheck, type Author, type Side } from "./rules";
import { UPLOAD_QUOTA, type UploadUse } from "../uploads/quota";

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

/** One message to order: who writes (checked by the caller: the socket's identity, or the REST session) and what. */
export type NewMessage = {
  conversation_id: number;
  author: Side;
  client_message_id: string;
  operator_id: number | null;
  /** The operator's account, shown beside operator messages. */
  operator_name: string | null;
  text: string | null;
  upload_id: string | null;
};

export type Unread = { visitor: number; operator: number };

export type SendResult =
  | { status: "ok"; message: MessageRow; duplicate: boolean }
  | { status: "rate_limited"; retry_after_ms: number }
  | { status: "closed" | "not_found" | "picture_unknown" };

/**
 * Whether the conversation's sequencer takes a message, from what it holds: a merged-away
 * conversation takes nothing, a known client id answers the stored message (and changes
 * nothing, even past the rate limit), operators write only while it is open, and a visitor at
 * most 20 messages a minute (writing reopens a closed conversation).
 */
export function admitMessage(
  state: { merged: boolean; status: "open" | "closed" },
  m: Pick<NewMessage, "author">,
  existing: MessageRow | null,
  recent: { count: number; oldest_ms: number | null },
  now_ms: number,
): SendResult | { status: "new" } {
  if (state.merged) return { status: "not_found" };
  if (existing) return { status: "ok", message: existing, duplicate: true };
  if (m.author === "operator") return state.status === "closed" ? { status: "closed" } : { status: "new" };
  const limited = rateCheck(recent, now_ms);
  return limited.status === "ok" ? { status: "new" } : limited;
}

/** What a conversation's object takes over from D1 the first time it is used: the row and its messages. */
export async function conversationRecord(db: Db, conversation_id: number): Promise<{ conversation: Conversation | undefined; rows: MessageRow[] }> {
  const [[conversation], rows] = await db.batch([
    db.select().from(service_conversations).where(eq(service_conversations.id, conversation_id)),
    db.select(withOperator).from(service_messages).leftJoin(operators, eq(operators.id, service_messages.operator_id)).where(eq(service_messages.conversation_id, conversation_id)).orderBy(asc(service_messages.id)),
  ]);
  return { conversation, rows };
}

/** Whether the picture was uploaded into this conversation (one read: pictures are rare). */
export async function pictureUploaded(db: Db, conversation_id: number, upload_id: string): Promise<boolean> {
  const row = await db.query.service_uploads.findFirst({ where: and(eq(service_uploads.upload_id, upload_id), eq(service_uploads.conversation_id, conversation_id)) });
  return row !== undefined;
}

/** Eight bound values a message: twelve stay under D1's 100 a statement. */
const ROWS_PER_INSERT = 12;

/** One conversation's messages to write: rows its object already ordered and delivered (ids given). */
export type MessageGroup = {
  conversation_id: number;
  rows: MessageRow[];
  /** The user has no service page open: an operator's reply also writes an `operator_message` notice. */
  notify_user?: boolean;
};
export type GroupWritten = { conversation: Conversation | undefined; unread: Unread; noticed: boolean };

/** The statements one group costs in a batch at most (its inserts, the notice, the conversation's update, the unread counts). */
export function groupStatements(rows: number): number {
  return Math.ceil(rows / ROWS_PER_INSERT) + 3;
}

/**
 * Writes the messages of several conversations in ONE D1 batch (the write-behind's group
 * commit, decision 086). Each insert is `ON CONFLICT DO NOTHING`, so writing the same message
 * again (a retried flush) changes nothing; then per conversation its last message (never
 * backwards; a visitor's message reopens it) and both sides' unread counts.
 */
export async function writeMessageGroups(db: Db, groups: MessageGroup[]): Promise<GroupWritten[]> {
  const d1 = db.$client;
  // Plain prepared statements, several rows an insert: this runs for every flush.
  const statements: D1PreparedStatement[] = [];
  const positions: { notice: number | null; at: number }[] = [];
  for (const g of groups) {
    for (let i = 0; i < g.rows.length; i += ROWS_PER_INSERT) statements.push(insertChunk(d1, g.conversation_id, g.rows.slice(i, i + ROWS_PER_INSERT)));
    const notice = g.notify_user ? operatorNotice(d1, g.conversation_id, g.rows) : null;
    if (notice) statements.push(notice);
    positions.push({ notice: notice ? statements.length - 1 : null, at: statements.length });
    statements.push(touchConversation(d1, g), unreadCounts(d1, g.conversation_id));
  }
  const results = await d1.batch(statements);
  return positions.map(({ notice, at }) => {
    const counts = results[at + 1].results[0] as Unread | undefined;
    return {
      conversation: results[at].results[0] as Conversation | undefined,
      unread: { visitor: Number(counts?.visitor ?? 0), operator: Number(counts?.operator ?? 0) },
      noticed: notice !== null && (results[notice].meta?.changes ?? 0) > 0,
    };
  });
}

function insertChunk(d1: D1Database, conversation_id: number, chunk: MessageRow[]) {
  return d1
    .prepare(`INSERT INTO service_messages (id, conversation_id, author, client_message_id, operator_id, text, upload_id, created_at_ms) VALUES ${chunk.map(() => "(?, ?, ?, ?, ?, ?, ?, ?)").join(", ")} ON CONFLICT DO NOTHING`)
    .bind(...chunk.flatMap((m) => [m.id, conversation_id, m.author, m.client_message_id, m.operator_id, m.text, m.upload_id, m.created_at_ms]));
}

function touchConversation(d1: D1Database, g: MessageGroup) {
  const last = g.rows[g.rows.length - 1];
  const reopen = g.rows.some((r) => r.author === "visitor") ? 1 : 0;
  return d1
    .prepare(
      `UPDATE service_conversations SET status = CASE WHEN ?1 = 1 THEN 'open' ELSE status END,
         last_message_preview = CASE WHEN ?2 >= coalesce(last_message_at_ms, 0) THEN ?3 ELSE last_message_preview END,
         last_message_at_ms = max(coalesce(last_message_at_ms, 0), ?2)
       WHERE id = ?4 RETURNING *`,
    )
    .bind(reopen, last.created_at_ms, previewOf(last.text), g.conversation_id);
}

function unreadCounts(d1: D1Database, conversation_id: number) {
  return d1
    .prepare(
      `SELECT (SELECT count(*) FROM service_messages WHERE conversation_id = c.id AND author = 'operator' AND id > c.visitor_read_id) AS visitor,
              (SELECT count(*) FROM service_messages WHERE conversation_id = c.id AND author = 'visitor' AND id > c.operator_read_id) AS operator
       FROM service_conversations c WHERE c.id = ?`,
    )
    .bind(conversation_id);
}

/**
 * The user's `operator_message` notice, written with the operator's messages when the user has
 * no service page open (the conversation's object knows). At most one unread per conversation:
 * a second reply while the first notice is unread adds nothing. Guests (no user) get none.
 */
function operatorNotice(d1: D1Database, conversation_id: number, rows: readonly MessageRow[]): D1PreparedStatement | null {
  const first = rows.find((r) => r.author === "operator");
  if (!first) return null;
  return d1
    .prepare(
      `INSERT INTO notifications (user_id, kind, params_json, dedupe_key, created_at_ms)
       SELECT c.user_id, 'operator_message', json_object('conversation_id', c.id), ?2, ?3 FROM service_conversations c
       WHERE c.id = ?1 AND c.user_id IS NOT NULL AND NOT EXISTS (
         SELECT 1 FROM notifications n WHERE n.user_id = c.user_id AND n.kind = 'operator_message' AND n.read_at_ms IS NULL
           AND json_extract(n.params_json, '$.conversation_id') = c.id)
       ON CONFLICT DO NOTHING`,
    )
    .bind(conversation_id, `service:${conversation_id}:${first.id}`, first.created_at_ms);
}

/**
 * Records how far `reader` got (delivered or read, up to a message id). Never moves backwards,
 * and never past the conversation's last message (`last_id`, from its object). Reading implies delivery.
 * `notices_read`: the visitor's read also read an operator-reply notice (the bell's count changed).
 */
export async function recordProgress(db: Db, conversation_id: number, reader: Side, state: "delivered" | "read", up_to_id: number, last_id: number): Promise<{ conversation: Conversation | undefined; notices_read: boolean }> {
  const delivered = reader === "visitor" ? service_conversations.visitor_delivered_id : service_conversations.operator_delivered_id;
  const read = reader === "visitor" ? service_conversations.visitor_read_id : service_conversations.operator_read_id;
  // The conversation's object knows its last id (D1 may not have the newest messages yet).
  const capped = sql`${Math.min(up_to_id, last_id)}`;
  const set: Record<string, unknown> = { [delivered.name]: sql`max(${delivered}, ${capped})` };
  if (state === "read") set[read.name] = sql`max(${read}, ${capped})`;
  const update = db.update(service_conversations).set(set).where(eq(service_conversations.id, conversation_id)).returning();
  if (!(reader === "visitor" && state === "read")) return { conversation: (await update)[0], notices_read: false };
  // The user read the chat: its "customer service wrote" notice is read too, so the next reply
  // (while no service page is open) notifies again.
  const [[row], notices] = await db.batch([update, readOperatorNotices(db, conversation_id)]);
  return { conversation: row, notices_read: ((notices as { meta?: { changes?: number } }).meta?.changes ?? 0) > 0 };
}

function readOperatorNotices(db: Db, conversation_id: number) {
  return db
    .update(notifications)
    .set({ read_at_ms: sql`unixepoch() * 1000` })
    .where(and(eq(notifications.kind, "operator_message"), isNull(notifications.read_at_ms), sql`json_extract(${notifications.params_json}, '$.conversation_id') = ${conversation_id}`, sql`${notifications.user_id} = (SELECT user_id FROM service_conversations WHERE id = ${conversation_id})`));
}

/** Links an uploaded picture to a conversation, so its members may see it. */
export async function linkUpload(db: Db, upload_id: string, conversation_id: number, author: Side, now_ms: number) {
  await db.insert(service_uploads).values({ upload_id, conversation_id, author, created_at_ms: now_ms });
}

/** The visitor's pictures in the conversation over the upload quota's window (guests are counted by conversation). */
export async function conversationUploads(db: Db, conversation_id: number, now_ms: number): Promise<UploadUse> {
  const [row] = await db.all<{ files: number; bytes: number }>(sql`
    SELECT COUNT(*) AS files, COALESCE(SUM(u.size_bytes), 0) AS bytes FROM service_uploads s JOIN uploads u ON u.id = s.upload_id
    WHERE s.conversation_id = ${conversation_id} AND s.author = 'visitor' AND s.created_at_ms > ${now_ms - UPLOAD_QUOTA.window_ms}`);
  return { files: Number(row?.files ?? 0), bytes: Number(row?.bytes ?? 0) };
}

/** The conversation a chat picture belongs to, if it is one. */
export async function conversationOfUpload(db: Db, upload_id: string): Promise<number | null> {
  const row = await db.query.service_uploads.findFirst({ where: eq(service_uploads.upload_id, upload_id) });
  return row?.conversation_id ?? null;
}
