import { PageSocketObject } from "../page-socket-object";
import { getDb } from "../../worker/db/client";
import { invocationDb } from "../../worker/db/limits";
import type { Env } from "../../worker/env";
import { groupStatements, writeMessageGroups, type GroupWritten, type MessageGroup, type MessageRow } from "../../worker/domain/service/messages";
import { openPage, sendAll } from "../page-sockets";
import type { ServerMessage } from "../protocol";
import type { ServiceInboxApi } from "./conversation-api";
import { logError, asInvocation } from "../../worker/observability/log";

/** A group commit holds at most this many statements (D1 counts up to 1,000 queries an invocation). */
const STATEMENTS_PER_COMMIT = 600;

type Waiting = { group: MessageGroup; resolve: (w: GroupWritten) => void; reject: (err: unknown) => void };
type Held = { rows: MessageRow[]; resolve: () => void; reject: (err: unknown) => void };

/** A journal row older than this without its conversation having written it to D1: the alarm asks the conversation to. */
const STALE_MS = 30_000;

/**
 * One for all operators, and the one writer of customer-service messages to D1.
 *
 * The inbox: the console's inbox pages connect here (hibernating WebSockets) and hear `inbox`
 * whenever a conversation changes. The Worker lets only operators upgrade.
 *
 * The journal (decision 105): a conversation's object hands every message it orders here before
 * anyone hears of it. The rows that arrive within one turn are written in one synchronous block,
 * so one storage commit (one fsync on local workerd) holds them all; each caller's answer waits
 * for that commit (the output gate). A row leaves the journal once D1 has it.
 *
 * The writer (decision 086): every conversation's object hands its pending messages here
 * instead of writing D1 itself. Whatever arrives while a commit runs goes into the next one,
 * so D1 sees one batch per commit, not one per conversation (a D1 call costs about the same
 * whatever it carries), and the inbox hears each written conversation without another call.
 */
export class ServiceInbox extends PageSocketObject implements ServiceInboxApi {
  private queue: Waiting[] = [];
  private committing = false;
  private held: Held[] = [];
  private journalReady = false;
  private alarmArmed = false;

  private journalSql() {
    const sql = this.ctx.storage.sql;
    if (!this.journalReady) {
      sql.exec(`CREATE TABLE IF NOT EXISTS journal (conversation_id INTEGER NOT NULL, id INTEGER NOT NULL, row TEXT NOT NULL, at_ms INTEGER NOT NULL, PRIMARY KEY (conversation_id, id))`);
      this.journalReady = true;
    }
    return sql;
  }

  /** Keeps the rows durably; answers once they are (with every row that came in the same turn). */
  journal(rows: MessageRow[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.held.push({ rows, resolve, reject });
      if (this.held.length === 1) setTimeout(() => this.writeHeld(), 0);
    });
  }

  /** One synchronous block, so one commit for everything held. */
  private writeHeld() {
    const all = this.held.splice(0);
    try {
      const sql = this.journalSql();
      const now = Date.now();
      for (const h of all) for (const r of h.rows) sql.exec(`INSERT OR IGNORE INTO journal VALUES (?, ?, ?, ?)`, r.conversation_id, r.id, JSON.stringify(r), now);
    } catch (err) {
      for (const h of all) h.reject(err);
      return;
    }
    this.armAlarm();
    for (const h of all) h.resolve();
  }

  /** What the journal holds of one conversation (a restarted conversation takes it back). */
  journaledOf(conversation_id: number): MessageRow[] {
    return this.journalSql().exec<{ row: string }>(`SELECT row FROM journal WHERE conversation_id = ? ORDER BY id`, conversation_id).toArray().map((r) => JSON.parse(r.row) as MessageRow);
  }

  private forget(conversation_id: number, ids: number[]) {
    const sql = this.journalSql();
    for (const id of ids) sql.exec(`DELETE FROM journal WHERE conversation_id = ? AND id = ?`, conversation_id, id);
  }

  private armAlarm() {
    if (this.alarmArmed) return;
    this.alarmArmed = true;
    void this.ctx.storage.setAlarm(Date.now() + STALE_MS);
  }

  /**
   * The safety net: a row still here long after it was journaled belongs to a conversation that
   * stopped before writing it (a crash, an eviction). Its object, asked to flush, takes the row
   * back and writes it; then the row leaves the journal.
   */
  async alarm(): Promise<void> {
    return asInvocation("alarm:service-inbox", () => this.onAlarm());
  }

  /** The alarm's work, under an invocation id of its own (its log lines carry it). */
  private async onAlarm(): Promise<void> {
    this.alarmArmed = false;
    const sql = this.journalSql();
    const stale = sql.exec<{ conversation_id: number; id: number }>(`SELECT conversation_id, id FROM journal WHERE at_ms < ? ORDER BY conversation_id, id`, Date.now() - STALE_MS).toArray();
    const byConversation = new Map<number, number[]>();
    for (const r of stale) byConversation.set(r.conversation_id, [...(byConversation.get(r.conversation_id) ?? []), r.id]);
    for (const [conversation_id, ids] of byConversation) {
      try {
        await this.env.SERVICE_CONVERSATION.get(this.env.SERVICE_CONVERSATION.idFromName(String(conversation_id))).flush(conversation_id);
        this.forget(conversation_id, ids);
      } catch (err) {
        logError("service.journal_flush_failed", { conversation_id, err });
      }
    }
    if (sql.exec(`SELECT 1 FROM journal LIMIT 1`).toArray().length > 0) this.armAlarm();
  }

  async fetch(request: Request): Promise<Response> {
    return openPage(this.ctx, request, Date.now());
  }

  async publish(message: ServerMessage): Promise<number> {
    return sendAll(this.ctx.getWebSockets(), [message]);
  }

  /** Writes one conversation's messages in the next group commit; answers once they are in D1. */
  persist(group: MessageGroup): Promise<GroupWritten> {
    return new Promise((resolve, reject) => {
      this.queue.push({ group, resolve, reject });
      this.commitNext();
    });
  }

  /** One commit at a time; when one ends, everything that queued meanwhile goes in the next. */
  private commitNext() {
    if (this.committing || this.queue.length === 0) return;
    this.committing = true;
    const taken = this.take();
    writeMessageGroups(getDb(invocationDb(this.env)), taken.map((w) => w.group))
      .then(
        (written) => {
          written.forEach((w, i) => {
            this.forget(taken[i].group.conversation_id, taken[i].group.rows.map((r) => r.id));
            const c = w.conversation;
            if (c) this.ctx.waitUntil(this.publish({ type: "inbox", conversation_id: c.id, unread: w.unread.operator, last_message_at_ms: c.last_message_at_ms, status: c.status, assigned_operator_id: c.assigned_operator_id }));
            taken[i].resolve(w);
          });
        },
        // The callers keep their messages pending and try again (their alarm).
        (err) => taken.forEach((w) => w.reject(err)),
      )
      .finally(() => {
        this.committing = false;
        this.commitNext();
      });
  }

  /** The oldest waiting groups that fit one commit (always at least one). */
  private take(): Waiting[] {
    let statements = 0;
    let n = 0;
    while (n < this.queue.length) {
      statements += groupStatements(this.queue[n].group.rows.length);
      if (n > 0 && statements > STATEMENTS_PER_COMMIT) break;
      n++;
    }
    return this.queue.splice(0, n);
  }
}
