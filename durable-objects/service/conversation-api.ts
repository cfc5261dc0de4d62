/**
 * What the Worker may ask a conversation's Durable Object and the operators' inbox (their RPC
 * surfaces), apart from the classes: `worker/env.ts` types the bindings with these, so the
 * bindings never import the objects (which import Env).
 */
import type { ActionResult } from "../../worker/domain/service/operator";
import type { GroupWritten, MessageGroup, MessageRow, NewMessage, SendResult } from "../../worker/domain/service/messages";
import type { Conversation } from "../../worker/domain/service/conversations";
import type { Side } from "../../worker/domain/service/rules";
import type { ServerMessage } from "../protocol";
import type { EndedSessions } from "../page-socket-api";

export interface ServiceConversationApi extends Rpc.DurableObjectBranded {
  /**
   * Orders one message (the one sequencer, the same as a socket's `send`) and tells both sides;
   * D1 gets it right after. The caller checked who writes (REST session, or the socket's identity).
   */
  send(input: NewMessage): Promise<SendResult>;
  /**
   * Writes every message this object ordered to D1 before answering: call before reading
   * messages or unread counts from D1. `conversation_id` lets an object never used since its
   * storage was made take back the journal's rows (the inbox's alarm).
   */
  flush(conversation_id?: number): Promise<void>;
  /** `reader` received or read up to a message: recorded in D1 and told to both sides. */
  progress(conversation_id: number, reader: Side, state: "delivered" | "read", up_to_id: number, request_id?: string): Promise<Conversation | null>;
  /** Operator: closes or reopens (audit-logged, with a system message both sides see). */
  setStatus(operator_id: number, conversation_id: number, to: "open" | "closed", request_id?: string): Promise<ActionResult>;
  /** Operator: assigns the conversation (audit-logged); the inbox hears it. */
  assign(operator_id: number, conversation_id: number, to_operator_id: number | null, request_id?: string): Promise<ActionResult>;
  /** The guest's conversation was handed over: its guest pages are closed (they reconnect signed in). */
  handedOver(): Promise<void>;
  /** Some of the user's sessions ended: the visitor pages opened under them close (decision 119). */
  closeSessions(which: EndedSessions): Promise<number>;
  /** Hand-over into the user's existing conversation, the guest's side: flushed, then it takes no more messages. */
  retire(conversation_id: number): Promise<void>;
  /** Hand-over, the user's side: the guest's messages move in with this conversation's next ids. */
  absorb(guest: Conversation, own: Conversation): Promise<void>;
}

export interface ServiceInboxApi extends Rpc.DurableObjectBranded {
  publish(message: ServerMessage): Promise<number>;
  /** The one D1 writer of service messages: one conversation's pending rows, in the next group commit (decision 086). */
  persist(group: MessageGroup): Promise<GroupWritten>;
  /** The journal (decision 105): keeps a conversation's newly ordered rows durably, in a group commit; answers once they are. */
  journal(rows: MessageRow[]): Promise<void>;
  /** The journal's rows of one conversation, oldest first. */
  journaledOf(conversation_id: number): MessageRow[];
}

/** The Worker → object headers that say who an authenticated upgrade is (set by worker/ws.ts only). */
export const SIDE_HEADER = "x-service-side";
export const GUEST_HEADER = "x-service-guest";
export const CONVERSATION_HEADER = "x-service-conversation";
/** An operator socket's operator (id and account: its messages record them). */
export const OPERATOR_HEADER = "x-service-operator";
export const OPERATOR_NAME_HEADER = "x-service-operator-name";
/** The socket's language (its refusals are in it). */
export const LOCALE_HEADER = "x-service-locale";
