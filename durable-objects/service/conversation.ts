import { DurableObject } from "cloudflare:workers";
import { DEFAULT_LOCALE, localeFromLang, type LocaleKey } from "../../locales/languages";
import { getDb } from "../../worker/db/client";
import { invocationDb } from "../../worker/db/limits";
import type { Env } from "../../worker/env";
import type { Conversation } from "../../worker/domain/service/conversations";
import { mergeGuest, type Move } from "../../worker/domain/service/handover";
import { admitMessage, conversationRecord, listMessages, messageView, pictureUploaded, recordProgress, unreadFor, type MessageRow, type NewMessage, type SendResult } from "../../worker/domain/service/messages";
import { assignConversation, setConversationStatus, type ActionResult } from "../../worker/domain/service/operator";
import { otherSide, type Side } from "../../worker/domain/service/rules";
import { deliverNotices, tellNoticeCounts } from "../../worker/notices";
import { notifyUser } from "../user-channel/channel-api";
import { closeBack, closeEndedSessions, sendAll, sessionTags } from "../page-sockets";
import type { EndedSessions } from "../page-socket-api";
import { encode, parseServiceClientMessage, refusalClose, SERVICE_FRAME_MAX, type ServerMessage } from "../protocol";
import { CONVERSATION_HEADER, GUEST_HEADER, LOCALE_HEADER, OPERATOR_HEADER, OPERATOR_NAME_HEADER, SIDE_HEADER, type ServiceConversationApi } from "./conversation-api";
import { Sequencer } from "./sequencer";
import { sendErrorOf } from "./send-errors";
import { logError, underRequest, asInvocation } from "../../worker/observability/log";

/** Who a socket is, fixed at the (authenticated) upgrade. */
type Attachment = { side: Side; conversation_id: number; operator_id: number | null; operator_name: string | null; locale: LocaleKey };

/** D1 gets the pending messages at most this many per batch. */
const FLUSH_BATCH = 120;
/**
 * How long pending messages wait for company before they are written to D1. Every message is
 * delivered at once (once the journal has it); this only batches the D1 record. Without it a
 * busy chat costs one D1 batch per message on the objects' shared thread, which is what delivery
 * waits behind. The jitter keeps many conversations from writing in the same instant. REST reads
 * never wait for it: they call `flush()`.
 */
const FLUSH_DELAY_MS = { min: 1_000, jitter: 1_000 };

/**
 * One per conversation: the one sequencer of its messages and the fan-out to both sides' pages
 * over hibernating WebSockets. A message is ordered here (its id, de-duplication, the rate
 * limit), kept durably in the inbox's journal in a group commit with other conversations'
 * messages (decision 105), then sent to every page, and written to D1 shortly after by the one
 * service writer (decision 086). D1 stays the record that every REST read uses; reads ask
 * `flush()` first. The Worker authenticates every upgrade and call.
 */
export class ServiceConversation extends DurableObject<Env> implements ServiceConversationApi {
  private readonly seq: Sequencer;
  private tail: Promise<unknown> = Promise.resolve();
  private flushQueued = false;
  /** Rows whose journal write is under way: a duplicate, a flush or a hand-over waits for them. */
  private readonly journaling = new Map<number, Promise<void>>();
  /** Echoes go out in id order, each once its row is durable. */
  private echoTail: Promise<void> = Promise.resolve();
  /** This instance took back what the journal and D1 hold (once an instance). */
  private adopting: Promise<void> | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.seq = new Sequencer(ctx.storage.sql);
  }

  /** Runs `work` after every D1 write queued before it: one writer at a time, in arrival order. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private db() {
    return getDb(invocationDb(this.env));
  }

  /** The conversation's state in this object's storage, taken over from D1 the first time; false if there is no such conversation. */
  private async ready(conversation_id: number): Promise<boolean> {
    if (!this.seq.meta()) {
      const { conversation, rows } = await conversationRecord(this.db(), conversation_id);
      if (!conversation) return false;
      this.seq.load({ conversation_id, status: conversation.status, merged: conversation.merged_into_id !== null }, rows);
    }
    this.adopting ??= this.adopt(conversation_id).catch((err) => {
      this.adopting = null;
      throw err;
    });
    await this.adopting;
    return true;
  }

  /**
   * A new instance (a restart, an eviction) takes back what an earlier one ordered: the rows D1
   * has beyond this storage's newest, and the journal's rows, before it orders anything.
   */
  private async adopt(conversation_id: number) {
    // Only rows past this storage's newest: a lost flush's answer leaves at most a few batches there.
    const [{ rows }, journal] = await Promise.all([listMessages(this.db(), conversation_id, { after_id: this.seq.newestWritten(), limit: 5_000 }), this.inbox().journaledOf(conversation_id)]);
    this.seq.adopt(rows, journal);
  }

  async fetch(request: Request): Promise<Response> {
    const side = request.headers.get(SIDE_HEADER);
    const conversation_id = Number(request.headers.get(CONVERSATION_HEADER));
    if ((side !== "visitor" && side !== "operator") || !Number.isSafeInteger(conversation_id)) return new Response("forbidden", { status: 403 });
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket", { status: 426 });
    const operator_id = side === "operator" ? Number(request.headers.get(OPERATOR_HEADER)) : null;
    if (operator_id !== null && !Number.isSafeInteger(operator_id)) return new Response("forbidden", { status: 403 });
    // Taken over from D1 now, at the upgrade, so the first message sent on this socket reads no D1.
    if (!(await this.ready(conversation_id))) return new Response("not found", { status: 404 });
    const { 0: client, 1: server } = new WebSocketPair();
    // Tags let a fan-out pick one side, and a hand-over find the guest's pages.
    // A signed-in visitor's socket also carries its session, closed when that session ends.
    this.ctx.acceptWebSocket(server, request.headers.get(GUEST_HEADER) === "1" ? [side, "guest"] : [side, ...(side === "visitor" ? sessionTags(request) : [])]);
    const locale = localeFromLang(request.headers.get(LOCALE_HEADER)) ?? DEFAULT_LOCALE;
    server.serializeAttachment({ side, conversation_id, operator_id, operator_name: side === "operator" ? request.headers.get(OPERATOR_NAME_HEADER) : null, locale } satisfies Attachment);
    server.send(encode({ type: "hello", server_time_ms: Date.now() }));
    return new Response(null, { status: 101, webSocket: client });
  }

  /**
   * REST's send (clients without a socket): ordered like a socket's, and written to D1 before
   * the answer, so whatever the client reads next (the inbox, unread counts) already has it.
   */
  async send(m: NewMessage): Promise<SendResult> {
    const result = await this.accept(m);
    if (result.status === "ok" && !result.duplicate) await this.flush();
    return result;
  }

  private async accept(m: NewMessage): Promise<SendResult> {
    if (!(await this.ready(m.conversation_id))) return { status: "not_found" };
    // The one D1 read on this path, before the message takes its place: pictures are rare.
    if (m.upload_id !== null && !this.seq.byClientId(m.author, m.client_message_id) && !(await pictureUploaded(this.db(), m.conversation_id, m.upload_id))) return { status: "picture_unknown" };
    const result = this.order(m, Date.now());
    if (result.status !== "ok") return result;
    if (result.duplicate) {
      // Its first copy may still be on its way to the journal: nobody hears of it before it is there.
      await this.journaling.get(result.message.id);
      return result;
    }
    await this.keep(result.message);
    return result;
  }

  /**
   * The journal write, then the echo to every page: the sender's own pages get the message too
   * (its echo is the acknowledgement). Echoes keep the order of ids.
   */
  private async keep(row: MessageRow): Promise<void> {
    const durable = this.inbox()
      .journal([row])
      .catch((err) => {
        this.seq.drop(row.id);
        throw err;
      })
      .finally(() => this.journaling.delete(row.id));
    this.journaling.set(row.id, durable);
    this.echoTail = this.echoTail.then(
      () =>
        durable.then(
          () => {
            this.fanOut([{ type: "message", message: messageView(row, { delivered_id: 0, read_id: 0 }) }]);
            this.flushSoon();
          },
          () => undefined,
        ),
    );
    await durable;
  }

  /**
   * Synchronous from the checks to the id, so no other message can come between them: this is
   * what makes the object the one sequencer.
   */
  private order(m: NewMessage, now_ms: number): SendResult {
    const meta = this.seq.meta()!;
    const recent = m.author === "visitor" ? this.seq.recentVisitor(now_ms) : { count: 0, oldest_ms: null };
    const decision = admitMessage(meta, m, this.seq.byClientId(m.author, m.client_message_id), recent, now_ms);
    if (decision.status !== "new") return decision;
    const { author, client_message_id, operator_id, operator_name, text, upload_id } = m;
    const row = this.seq.append({ author, client_message_id, operator_id, operator_name, text, upload_id, created_at_ms: now_ms });
    // A visitor writing reopens a closed conversation (D1 follows at the flush).
    if (author === "visitor" && meta.status === "closed") this.seq.setMeta({ status: "open" });
    return { status: "ok", message: row, duplicate: false };
  }

  /** Writes everything pending to D1 before answering: what a REST read must see. Cheap when nothing is pending. */
  async flush(conversation_id?: number): Promise<void> {
    const id = this.seq.meta()?.conversation_id ?? conversation_id;
    if (id === undefined) return;
    // A new instance first takes back what the journal holds for it (that is what it must write).
    if (!(await this.ready(id))) return;
    if (!this.seq.hasPending() && !this.flushQueued) return;
    await this.serial(() => this.writePending());
  }

  /** One flush queued at a time, shortly after the first pending message; when it runs it takes everything pending by then. */
  private flushSoon() {
    if (this.flushQueued) return;
    this.flushQueued = true;
    setTimeout(() => {
      this.serial(async () => {
        this.flushQueued = false;
        await this.writePending();
      }).catch((err) => logError("service.flush_failed", { retry: "alarm", err }));
    }, FLUSH_DELAY_MS.min + Math.random() * FLUSH_DELAY_MS.jitter);
  }

  /**
   * Hands what D1 does not have yet to the one service writer (the inbox object, decision 086),
   * which writes it in its next group commit and tells the operators' inbox; the user's me-tab
   * badge is told from here when an operator wrote.
   */
  private async writePending(): Promise<void> {
    // Rows still on their way to the journal belong to this write too.
    await Promise.allSettled([...this.journaling.values()]);
    for (let rows = this.seq.pending(FLUSH_BATCH, this.journaling); rows.length > 0; rows = this.seq.pending(FLUSH_BATCH, this.journaling)) {
      // A user without a service page open hears of an operator's reply in the notification centre.
      const notify_user = this.ctx.getWebSockets("visitor").length === 0;
      const { conversation, unread, noticed } = await this.inbox().persist({ conversation_id: rows[0].conversation_id, rows, notify_user });
      this.seq.markFlushed(rows.map((r) => r.id));
      const user_id = conversation?.user_id ?? null;
      if (user_id !== null && rows.some((r) => r.author === "operator")) {
        this.ctx.waitUntil(notifyUser(this.env, user_id, { type: "service", unread: unread.visitor }).catch((err) => logError("service.notify_failed", { conversation_id: rows[0].conversation_id, err })));
      }
      if (noticed && user_id !== null) this.ctx.waitUntil(deliverNotices(this.env, [user_id], rows.find((r) => r.author === "operator")!.created_at_ms));
    }
  }

  private inbox() {
    return this.env.SERVICE_INBOX.get(this.env.SERVICE_INBOX.idFromName("inbox"));
  }

  /**
   * An alarm an earlier version of this object set: it writes what is pending. Pending rows now
   * wait in the inbox's journal, whose alarm asks for the flush (decision 105).
   */
  async alarm(): Promise<void> {
    return asInvocation("alarm:service-conversation", () => this.onAlarm());
  }

  /** The alarm's work, under an invocation id of its own (its log lines carry it). */
  private async onAlarm(): Promise<void> {
    await this.flush().catch((err) => logError("service.flush_failed", { err }));
  }

  /** `request_id` (the API request's, on every call that tells others): this work's lines carry it. */
  async progress(conversation_id: number, reader: Side, state: "delivered" | "read", up_to_id: number, request_id?: string): Promise<Conversation | null> {
    return underRequest(request_id, "ServiceConversation.progress", () => this.progressNow(conversation_id, reader, state, up_to_id));
  }

  private async progressNow(conversation_id: number, reader: Side, state: "delivered" | "read", up_to_id: number): Promise<Conversation | null> {
    if (!(await this.ready(conversation_id))) return null;
    const { conversation, notices_read } = await this.serial(() => recordProgress(this.db(), conversation_id, reader, state, up_to_id, this.seq.meta()!.last_id));
    if (!conversation) return null;
    if (notices_read && conversation.user_id) this.ctx.waitUntil(tellNoticeCounts(this.env, [conversation.user_id]));
    const reached = reader === "visitor" ? conversation[state === "read" ? "visitor_read_id" : "visitor_delivered_id"] : conversation[state === "read" ? "operator_read_id" : "operator_delivered_id"];
    this.fanOut([{ type: "read", reader, state, up_to_id: reached }]);
    if (state === "read") {
      // A read changes the reader's unread count: the inbox (operators) or the me-tab badge (the user).
      this.ctx.waitUntil(reader === "operator" ? this.tell(conversation, null, null) : this.flush().then(() => unreadFor(this.db(), conversation, "visitor")).then((n) => this.tell(conversation, null, n)));
    }
    return conversation;
  }

  async setStatus(operator_id: number, conversation_id: number, to: "open" | "closed", request_id?: string): Promise<ActionResult> {
    return underRequest(request_id, "ServiceConversation.setStatus", () => this.setStatusNow(operator_id, conversation_id, to));
  }

  private async setStatusNow(operator_id: number, conversation_id: number, to: "open" | "closed"): Promise<ActionResult> {
    if (!(await this.ready(conversation_id))) return { status: "not_found" };
    const result = await this.serial(async () => {
      // Pending messages first: a visitor's message written later would reopen what this closes.
      await this.writePending();
      const id = this.seq.nextId();
      this.seq.setMeta({ last_id: id }); // reserved: a message ordered meanwhile comes after
      const r = await setConversationStatus(this.db(), operator_id, conversation_id, to, Date.now(), id);
      if (r.status === "ok" && r.system) {
        this.seq.keep(r.system);
        this.seq.setMeta({ status: to });
      }
      return r;
    });
    if (result.status === "ok") {
      if (result.system) this.fanOut([{ type: "message", message: messageView(result.system as MessageRow, { delivered_id: 0, read_id: 0 }) }]);
      this.ctx.waitUntil(this.tell(result.conversation, null, null));
    }
    return result;
  }

  async assign(operator_id: number, conversation_id: number, to_operator_id: number | null, request_id?: string): Promise<ActionResult> {
    return underRequest(request_id, "ServiceConversation.assign", () => this.assignNow(operator_id, conversation_id, to_operator_id));
  }

  private async assignNow(operator_id: number, conversation_id: number, to_operator_id: number | null): Promise<ActionResult> {
    const result = await assignConversation(this.db(), operator_id, conversation_id, to_operator_id, Date.now());
    if (result.status === "ok") this.ctx.waitUntil(this.tell(result.conversation, null, null));
    return result;
  }

  async handedOver(): Promise<void> {
    for (const ws of this.ctx.getWebSockets("guest")) {
      try {
        ws.close(4000, "handed over");
      } catch {
        // Already closing.
      }
    }
  }

  /** Hand-over, the guest's side: everything pending goes to D1, then this conversation takes no more messages. */
  async closeSessions(which: EndedSessions): Promise<number> {
    const signedIn = this.ctx.getWebSockets("visitor").filter((ws) => !this.ctx.getTags(ws).includes("guest"));
    return closeEndedSessions(this.ctx, signedIn, which);
  }

  async retire(conversation_id: number): Promise<void> {
    if (!(await this.ready(conversation_id))) return;
    await this.serial(async () => {
      await this.writePending();
      this.seq.setMeta({ merged: true });
    });
    await this.handedOver();
  }

  /**
   * Hand-over, the user's side: the guest's messages (already in D1, see `retire`) move in with
   * this conversation's next ids, after everything it holds; one whose client id this
   * conversation already has is the same message sent twice and stays behind.
   */
  async absorb(guest: Conversation, own: Conversation): Promise<void> {
    if (!(await this.ready(own.id))) return;
    await this.serial(async () => {
      await this.writePending();
      const { rows } = await conversationRecord(this.db(), guest.id);
      const moving = rows.filter((r) => r.author === "system" || r.client_message_id === null || !this.seq.byClientId(r.author, r.client_message_id));
      const first = this.seq.nextId();
      const moves: Move[] = moving.map((r, i) => ({ from: r.id, to: first + i }));
      if (moves.length > 0) this.seq.setMeta({ last_id: first + moves.length - 1 }); // reserved before the write
      await mergeGuest(this.db(), guest, own, moves);
      moving.forEach((r, i) => this.seq.keep({ ...r, id: first + i, conversation_id: own.id }));
      this.seq.setMeta({ status: "open" });
    });
  }

  async webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer) {
    const message = parseServiceClientMessage(raw);
    if (!message) {
      const close = refusalClose(raw, SERVICE_FRAME_MAX);
      return ws.close(close.code, close.reason);
    }
    const who = ws.deserializeAttachment() as Attachment;
    if (message.type === "ping") ws.send(encode({ type: "pong", server_time_ms: Date.now() }));
    else if (message.type === "typing") sendAll(this.ctx.getWebSockets(otherSide(who.side)), [{ type: "typing", from: who.side, typing: message.typing }]);
    else if (message.type === "send") await this.sendFromSocket(ws, who, message);
    else await this.progress(who.conversation_id, who.side, message.state, message.up_to_id);
  }

  /** A message sent over the socket: ordered like a REST one; a refusal answers this socket only, in its language. */
  private async sendFromSocket(ws: WebSocket, who: Attachment, message: { client_message_id: string; text?: string; upload_id?: string }) {
    const refused = (error: ServerMessage) => ws.send(encode(error));
    const shape = sendErrorOf.shape(message, who.locale);
    if (shape) return refused(shape);
    const body = sendErrorOf.body(message);
    const result = await this.accept({ conversation_id: who.conversation_id, author: who.side, client_message_id: message.client_message_id, operator_id: who.operator_id, operator_name: who.operator_name, ...body });
    // A duplicate was delivered before: the sender gets it again (its acknowledgement), nobody else.
    if (result.status === "ok" && result.duplicate) ws.send(encode({ type: "message", message: messageView(result.message, { delivered_id: 0, read_id: 0 }) }));
    else if (result.status !== "ok") refused(sendErrorOf.result(message.client_message_id, result, who.locale));
  }

  async webSocketClose(ws: WebSocket, code: number) {
    closeBack(ws, code);
  }

  async webSocketError(ws: WebSocket) {
    ws.close(1011, "error");
  }

  private fanOut(messages: ServerMessage[]) {
    sendAll(this.ctx.getWebSockets(), messages);
  }

  /**
   * Tells whoever watches from outside: the operators' inbox (with the operators' unread count,
   * counted here when not given) and, when `visitor_unread` is given, the user's own channel
   * (the me-tab badge). Never fails the caller's operation.
   */
  private async tell(c: Conversation, operator_unread: number | null, visitor_unread: number | null) {
    try {
      const unread = operator_unread ?? (await unreadFor(this.db(), c, "operator"));
      await this.inbox().publish({ type: "inbox", conversation_id: c.id, unread, last_message_at_ms: c.last_message_at_ms, status: c.status, assigned_operator_id: c.assigned_operator_id });
      if (visitor_unread !== null && c.user_id !== null) await notifyUser(this.env, c.user_id, { type: "service", unread: visitor_unread });
    } catch (err) {
      logError("service.notify_failed", { conversation_id: c.id, err });
    }
  }
}

