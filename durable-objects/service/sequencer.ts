/**
 * The conversation's own record, in its Durable Object's SQLite storage: the next id, the
 * status the object enforces, and every message D1 already has (for de-duplication by client
 * id and the visitor's rate limit). A message ordered but not yet in D1 is held in memory here
 * (`unwritten`); its durable copy is the inbox's journal (decision 105), written in a group
 * commit with other conversations' messages before the message is echoed to anyone. A restarted
 * object takes those rows back from the journal (`adopt`).
 *
 * Why not the object's own storage for every message: each object's storage commits on its own,
 * and on local workerd each commit is an fsync on the one thread every object shares, so 200
 * busy conversations spent most of their time waiting on each other's fsyncs. Rows reach this
 * storage once D1 has them, one write per flush.
 */
import type { MessageRow } from "../../worker/domain/service/messages";
import { nextMessageId, RATE_LIMIT, type Side } from "../../worker/domain/service/rules";

export type Meta = { conversation_id: number; status: "open" | "closed"; merged: boolean; last_id: number };
export type NewRow = Omit<MessageRow, "id" | "conversation_id">;

const COLUMNS = "id, author, client_message_id, operator_id, operator_name, text, upload_id, created_at_ms";

export class Sequencer {
  private cached: Meta | null = null;
  /** Ordered, journaled or about to be, not yet in D1: oldest first. */
  private unwritten: MessageRow[] = [];

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
    const held = this.unwritten.reduce((max, u) => Math.max(max, u.id), 0);
    this.cached = { conversation_id: row.conversation_id, status: row.status, merged: row.merged === 1, last_id: Math.max(row.last_id, newest, held) };
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
    const held = this.unwritten.find((u) => u.author === author && u.client_message_id === client_message_id);
    if (held) return held;
    const row = this.sql.exec<Omit<MessageRow, "conversation_id">>(`SELECT ${COLUMNS} FROM msgs WHERE author = ? AND client_message_id = ?`, author, client_message_id).toArray()[0];
    return row ? this.withConversation(row) : null;
  }

  /** The visitor's newest message times (at most as many as the limit counts), newest last; read from storage once an instance. */
  private visitorTimes: number[] | null = null;

  /** The visitor's messages inside the rate window: how many, and when the oldest was written. */
  recentVisitor(now_ms: number): { count: number; oldest_ms: number | null } {
    if (!this.visitorTimes) {
      const byId = new Map<number, number>();
      for (const r of this.sql.exec<{ id: number; t: number }>(`SELECT id, created_at_ms AS t FROM msgs WHERE author = 'visitor' ORDER BY id DESC LIMIT ?`, RATE_LIMIT.messages)) byId.set(r.id, r.t);
      for (const u of this.unwritten) if (u.author === "visitor") byId.set(u.id, u.created_at_ms);
      this.visitorTimes = [...byId.entries()].sort((a, b) => a[0] - b[0]).map(([, t]) => t).slice(-RATE_LIMIT.messages);
    }
    const recent = this.visitorTimes.filter((t) => t > now_ms - RATE_LIMIT.window_ms);
    return { count: recent.length, oldest_ms: recent.length ? recent[0] : null };
  }

  /** Gives the message the conversation's next id and holds it as not yet in D1 (its journal write is the caller's). */
  append(m: NewRow): MessageRow {
    const row = { ...m, id: this.nextId(), conversation_id: this.meta()!.conversation_id };
    this.unwritten.push(row);
    this.cached!.last_id = row.id;
    if (row.author === "visitor" && this.visitorTimes) this.visitorTimes = [...this.visitorTimes.slice(1 - RATE_LIMIT.messages), row.created_at_ms];
    return row;
  }

  /**
   * Gives up a row whose journal write failed: nobody was told of it. Its id is not handed out
   * again: the write may have landed with only its answer lost, and a restart must never take
   * back that row under another message's id.
   */
  drop(id: number) {
    this.unwritten = this.unwritten.filter((r) => r.id !== id);
    this.visitorTimes = null;
  }

  /**
   * A new instance takes back what it ordered before: rows D1 has that this storage lacks (a
   * flush whose answer was lost) are kept as written; the journal's rows that D1 lacks are held
   * as unwritten (they are durable: the journal has them).
   */
  adopt(inD1: MessageRow[], journal: MessageRow[]) {
    for (const r of inD1) this.insert(r, 1);
    const known = new Set(inD1.map((r) => r.id));
    for (const r of journal) {
      if (known.has(r.id) || this.unwritten.some((u) => u.id === r.id)) continue;
      if (this.sql.exec(`SELECT 1 FROM msgs WHERE id = ?`, r.id).toArray().length > 0) continue;
      this.unwritten.push(r);
    }
    // Rows an older version of this object stored before D1 had them: the same as journaled.
    for (const r of this.sql.exec<Omit<MessageRow, "conversation_id">>(`SELECT ${COLUMNS} FROM msgs WHERE flushed = 0`).toArray()) {
      if (!this.unwritten.some((u) => u.id === r.id)) this.unwritten.push(this.withConversation(r));
    }
    this.unwritten.sort((a, b) => a.id - b.id);
    this.cached = null;
    this.visitorTimes = null;
  }

  /** The newest id this storage holds as written to D1. */
  newestWritten(): number {
    return this.sql.exec<{ id: number | null }>(`SELECT max(id) AS id FROM msgs WHERE flushed = 1`).one().id ?? 0;
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

  /**
   * What D1 does not have yet and the journal has, oldest first: up to the first row whose
   * journal write is still in flight (`journaling`, the caller's ids on their way).
   */
  pending(limit: number, journaling: { has(id: number): boolean }): MessageRow[] {
    const out: MessageRow[] = [];
    for (const r of this.unwritten) {
      if (journaling.has(r.id) || out.length >= limit) break;
      out.push(r);
    }
    return out;
  }

  hasPending(): boolean {
    return this.unwritten.length > 0;
  }

  /** D1 has these now: kept in storage as written (one commit for all of them). */
  markFlushed(ids: number[]) {
    const done = new Set(ids);
    for (const u of this.unwritten) if (done.has(u.id)) this.insert(u, 1);
    for (const id of ids) this.sql.exec(`UPDATE msgs SET flushed = 1 WHERE id = ? AND flushed = 0`, id);
    this.unwritten = this.unwritten.filter((u) => !done.has(u.id));
  }

  private insert(r: MessageRow, flushed: number) {
    this.sql.exec(`INSERT OR IGNORE INTO msgs (${COLUMNS}, flushed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.id, r.author, r.client_message_id, r.operator_id, r.operator_name, r.text, r.upload_id, r.created_at_ms, flushed);
  }

  private withConversation(r: Omit<MessageRow, "conversation_id">): MessageRow {
    return { ...r, conversation_id: this.meta()!.conversation_id } as MessageRow;
  }
}
