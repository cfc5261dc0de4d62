/**
 * The conversation's own record, in its Durable Object's SQLite storage (synchronous, on the
 * same machine: no D1 round trip while a message is ordered). It holds the next id, the status
 * the object enforces, every message it ordered (for de-duplication by client id and the
 * visitor's rate limit) and which of them D1 does not have yet (`flushed = 0`). A message is
 * acknowledged only after its row is here, and the storage's output gate holds the echo until
 * the row is durable, so a restart loses nothing that a page saw.
 */
import type { MessageRow } from "../../worker/domain/service/messages";
import { nextMessageId, RATE_LIMIT, type Side } from "../../worker/domain/service/rules";

export type Meta = { conversation_id: number; status: "open" | "closed"; merged: boolean; last_id: number };
export type NewRow = Omit<MessageRow, "id" | "conversation_id">;

const COLUMNS = "id, author, client_message_id, operator_id, operator_name, text, upload_id, created_at_ms";

export class Sequencer {
  private cached: Meta | null = null;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS meta (conversation_id INTEGER NOT NULL, status TEXT NOT NULL, merged INTEGER NOT NULL, last_id INTEGER NOT NULL)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS msgs (id INTEGER PRIMARY KEY, author TEXT NOT NULL, client_message_id TEXT, operator_id INTEGER, operator_name TEXT,
      text TEXT, upload_id TEXT, created_at_ms INTEGER NOT NULL, flushed INTEGER NOT NULL)`);
    sql.exec(`CREATE UNIQUE INDEX IF NOT EXISTS msgs_client ON msgs (author, client_message_id)`);
    // Only the few rows D1 does not have yet are in this index: cheap to keep on every insert.
    sql.exec(`CREATE INDEX IF NOT EXISTS msgs_pending ON msgs (id) WHERE flushed = 0`);
  }

  /** Null until the conversation was loaded from D1 (the first time this object is used). */
  meta(): Meta | null {
    if (this.cached) return this.cached;
    const row = this.sql.exec<{ conversation_id: number; status: "open" | "closed"; merged: number; last_id: number }>(`SELECT * FROM meta`).toArray()[0];
    if (!row) return null;
    // The stored last_id only moves for reservations (rare); an ordinary message's id is its row's.
    const newest = this.sql.exec<{ id: number | null }>(`SELECT max(id) AS id FROM msgs`).one().id ?? 0;
    this.cached = { conversation_id: row.conversation_id, status: row.status, merged: row.merged === 1, last_id: Math.max(row.last_id, newest) };
    return this.cached;
  }

  /** Takes over what D1 holds of the conversation (all flushed), once. */
  load(meta: Omit<Meta, "last_id">, rows: MessageRow[]) {
    if (this.meta()) return;
    for (const r of rows) this.insert(r, 1);
    const last_id = rows.reduce((max, r) => Math.max(max, r.id), 0);
    this.sql.exec(`INSERT INTO meta VALUES (?, ?, ?, ?)`, meta.conversation_id, meta.status, meta.merged ? 1 : 0, last_id);
    this.cached = null;
  }

  /** Stores a change of status, or an id reserved before a D1 write (so a restart never hands it out again). */
  setMeta(change: Partial<Pick<Meta, "status" | "merged" | "last_id">>) {
    const m = { ...this.meta()!, ...change };
    this.sql.exec(`UPDATE meta SET status = ?, merged = ?, last_id = ?`, m.status, m.merged ? 1 : 0, m.last_id);
    this.cached = m;
  }

  byClientId(author: Side, client_message_id: string): MessageRow | null {
    const row = this.sql.exec<Omit<MessageRow, "conversation_id">>(`SELECT ${COLUMNS} FROM msgs WHERE author = ? AND client_message_id = ?`, author, client_message_id).toArray()[0];
    return row ? this.withConversation(row) : null;
  }

  /** The visitor's newest message times (at most as many as the limit counts), newest last; read from storage once an instance. */
  private visitorTimes: number[] | null = null;

  /** The visitor's messages inside the rate window: how many, and when the oldest was written. */
  recentVisitor(now_ms: number): { count: number; oldest_ms: number | null } {
    this.visitorTimes ??= this.sql
      .exec<{ t: number }>(`SELECT created_at_ms AS t FROM msgs WHERE author = 'visitor' ORDER BY id DESC LIMIT ?`, RATE_LIMIT.messages)
      .toArray()
      .map((r) => r.t)
      .reverse();
    const recent = this.visitorTimes.filter((t) => t > now_ms - RATE_LIMIT.window_ms);
    return { count: recent.length, oldest_ms: recent.length ? recent[0] : null };
  }

  /** Gives the message the conversation's next id and keeps it as not yet in D1. */
  append(m: NewRow): MessageRow {
    const row = { ...m, id: this.nextId(), conversation_id: this.meta()!.conversation_id };
    this.insert(row, 0);
    // In memory only: after a restart the newest row says the same (see meta()).
    this.cached!.last_id = row.id;
    if (row.author === "visitor" && this.visitorTimes) this.visitorTimes = [...this.visitorTimes.slice(1 - RATE_LIMIT.messages), row.created_at_ms];
    return row;
  }

  /** The id the next message will get. */
  nextId(): number {
    const meta = this.meta()!;
    return nextMessageId(meta.conversation_id, meta.last_id);
  }

  /** Keeps a message D1 already has (a system message, one moved in at hand-over) under its id. */
  keep(row: MessageRow) {
    this.insert(row, 1);
    this.setMeta({ last_id: Math.max(this.meta()!.last_id, row.id) });
    this.visitorTimes = null; // moved-in visitor messages count too: read again
  }

  /** What D1 does not have yet, oldest first. */
  pending(limit: number): MessageRow[] {
    return this.sql.exec<Omit<MessageRow, "conversation_id">>(`SELECT ${COLUMNS} FROM msgs WHERE flushed = 0 ORDER BY id LIMIT ?`, limit).toArray().map((r) => this.withConversation(r));
  }

  hasPending(): boolean {
    return this.sql.exec(`SELECT 1 FROM msgs WHERE flushed = 0 LIMIT 1`).toArray().length > 0;
  }

  markFlushed(ids: number[]) {
    for (const id of ids) this.sql.exec(`UPDATE msgs SET flushed = 1 WHERE id = ?`, id);
  }

  private insert(r: MessageRow, flushed: number) {
    this.sql.exec(`INSERT OR IGNORE INTO msgs (${COLUMNS}, flushed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.id, r.author, r.client_message_id, r.operator_id, r.operator_name, r.text, r.upload_id, r.created_at_ms, flushed);
  }

  private withConversation(r: Omit<MessageRow, "conversation_id">): MessageRow {
    return { ...r, conversation_id: this.meta()!.conversation_id } as MessageRow;
  }
}
