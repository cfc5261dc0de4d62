import { DurableObject } from "cloudflare:workers";
import { getDb } from "../../worker/db/client";
import { invocationDb } from "../../worker/db/limits";
import type { Env } from "../../worker/env";
import type { Conversation } from "../../worker/domain/service/conversations";
import { messageView, recordProgress, storeMessage, unreadFor, type MessageRow, type SendResult } from "../../worker/domain/service/messages";
import { assignConversation, setConversationStatus, type ActionResult } from "../../worker/domain/service/operator";
import { otherSide, type Side } from "../../worker/domain/service/rules";
import { notifyUser } from "../../worker/ws";
import { closeBack, sendAll } from "../page-sockets";
import { encode, parseServiceClientMessage, type ServerMessage } from "../protocol";
import { CONVERSATION_HEADER, GUEST_HEADER, SIDE_HEADER, type SendInput, type ServiceConversationApi } from "./conversation-api";

type Attachment = { side: Side; conversation_id: number };

/**
 * One per conversation: the one sequencer of its messages (they are written to D1 one at a
 * time, in the order this object takes them, so ascending id is the conversation's order), and
 * the fan-out to both sides' pages over hibernating WebSockets. D1 is the record; this object
 * keeps nothing that a restart would lose. The Worker authenticates every upgrade and call.
 */
export class ServiceConversation extends DurableObject<Env> implements ServiceConversationApi {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` after everything queued before it: one writer at a time, in arrival order. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private db() {
    return getDb(invocationDb(this.env));
  }

  async fetch(request: Request): Promise<Response> {
    const side = request.headers.get(SIDE_HEADER);
    const conversation_id = Number(request.headers.get(CONVERSATION_HEADER));
    if ((side !== "visitor" && side !== "operator") || !Number.isSafeInteger(conversation_id)) return new Response("forbidden", { status: 403 });
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket", { status: 426 });
    const { 0: client, 1: server } = new WebSocketPair();
    // Tags let a fan-out pick one side, and a hand-over find the guest's pages.
    this.ctx.acceptWebSocket(server, request.headers.get(GUEST_HEADER) === "1" ? [side, "guest"] : [side]);
    server.serializeAttachment({ side, conversation_id } satisfies Attachment);
    server.send(encode({ type: "hello", server_time_ms: Date.now() }));
    return new Response(null, { status: 101, webSocket: client });
  }

  async send(input: SendInput): Promise<SendResult> {
    const { operator_name, ...message } = input;
    if (message.author === "operator" ? message.member !== null : message.member === null) return { status: "not_found" };
    const result = await this.serial(() => storeMessage(this.db(), message, operator_name, Date.now()));
    if (result.status === "ok" && !result.duplicate) {
      this.fanOut([{ type: "message", message: messageView(result.message, { delivered_id: 0, read_id: 0 }) }]);
      // The me-tab badge only changes when an operator writes (the visitor's own message is not unread for them).
      this.ctx.waitUntil(this.tell(result.conversation, result.unread.operator, result.message.author === "operator" ? result.unread.visitor : null));
    }
    return result;
  }

  async progress(conversation_id: number, reader: Side, state: "delivered" | "read", up_to_id: number): Promise<Conversation | null> {
    const conversation = await this.serial(() => recordProgress(this.db(), conversation_id, reader, state, up_to_id));
    if (!conversation) return null;
    const reached = reader === "visitor" ? conversation[state === "read" ? "visitor_read_id" : "visitor_delivered_id"] : conversation[state === "read" ? "operator_read_id" : "operator_delivered_id"];
    this.fanOut([{ type: "read", reader, state, up_to_id: reached }]);
    if (state === "read") {
      const db = this.db();
      // A read changes the reader's unread count: the inbox (operators) or the me-tab badge (the user).
      this.ctx.waitUntil(reader === "operator" ? this.tell(conversation, null, null) : unreadFor(db, conversation, "visitor").then((n) => this.tell(conversation, null, n)));
    }
    return conversation;
  }

  async setStatus(operator_id: number, conversation_id: number, to: "open" | "closed"): Promise<ActionResult> {
    const result = await this.serial(() => setConversationStatus(this.db(), operator_id, conversation_id, to, Date.now()));
    if (result.status === "ok") {
      if (result.system) this.fanOut([{ type: "message", message: messageView(result.system as MessageRow, { delivered_id: 0, read_id: 0 }) }]);
      this.ctx.waitUntil(this.tell(result.conversation, null, null));
    }
    return result;
  }

  async assign(operator_id: number, conversation_id: number, to_operator_id: number | null): Promise<ActionResult> {
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

  async webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer) {
    const message = parseServiceClientMessage(raw);
    if (!message) return ws.close(1003, "unsupported message");
    const { side, conversation_id } = ws.deserializeAttachment() as Attachment;
    if (message.type === "ping") ws.send(encode({ type: "pong", server_time_ms: Date.now() }));
    else if (message.type === "typing") sendAll(this.ctx.getWebSockets(otherSide(side)), [{ type: "typing", from: side, typing: message.typing }]);
    else await this.progress(conversation_id, side, message.state, message.up_to_id);
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
      const inbox = this.env.SERVICE_INBOX.get(this.env.SERVICE_INBOX.idFromName("inbox"));
      await inbox.publish({ type: "inbox", conversation_id: c.id, unread, last_message_at_ms: c.last_message_at_ms, status: c.status, assigned_operator_id: c.assigned_operator_id });
      if (visitor_unread !== null && c.user_id !== null) await notifyUser(this.env, c.user_id, { type: "service", unread: visitor_unread });
    } catch (err) {
      console.error("service notify failed", c.id, err);
    }
  }
}
