import { PageSocketObject } from "../page-socket-object";
import { getDb } from "../../worker/db/client";
import { invocationDb } from "../../worker/db/limits";
import type { Env } from "../../worker/env";
import { groupStatements, writeMessageGroups, type GroupWritten, type MessageGroup } from "../../worker/domain/service/messages";
import { openPage, sendAll } from "../page-sockets";
import type { ServerMessage } from "../protocol";
import type { ServiceInboxApi } from "./conversation-api";

/** A group commit holds at most this many statements (D1 counts up to 1,000 queries an invocation). */
const STATEMENTS_PER_COMMIT = 600;

type Waiting = { group: MessageGroup; resolve: (w: GroupWritten) => void; reject: (err: unknown) => void };

/**
 * One for all operators, and the one writer of customer-service messages to D1.
 *
 * The inbox: the console's inbox pages connect here (hibernating WebSockets) and hear `inbox`
 * whenever a conversation changes. The Worker lets only operators upgrade.
 *
 * The writer (decision 086): every conversation's object hands its pending messages here
 * instead of writing D1 itself. Whatever arrives while a commit runs goes into the next one,
 * so D1 sees one batch per commit, not one per conversation (a D1 call costs about the same
 * whatever it carries), and the inbox hears each written conversation without another call.
 */
export class ServiceInbox extends PageSocketObject implements ServiceInboxApi {
  private queue: Waiting[] = [];
  private committing = false;

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
