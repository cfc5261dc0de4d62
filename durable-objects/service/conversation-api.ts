/**
 * What the Worker may ask a conversation's Durable Object and the operators' inbox (their RPC
 * surfaces), apart from the classes: `worker/env.ts` types the bindings with these, so the
 * bindings never import the objects (which import Env).
 */
import type { ActionResult } from "../../worker/domain/service/operator";
import type { NewMessage, SendResult } from "../../worker/domain/service/messages";
import type { Conversation } from "../../worker/domain/service/conversations";
import type { Side } from "../../worker/domain/service/rules";
import type { ServerMessage } from "../protocol";

/** Who wrote: the operator's account (shown beside operator messages) and the visitor's user, if any. */
export type SendInput = NewMessage & { operator_name: string | null };

export interface ServiceConversationApi extends Rpc.DurableObjectBranded {
  /** Stores one message in the conversation's order (the one sequencer) and tells both sides. */
  send(input: SendInput): Promise<SendResult>;
  /** `reader` received or read up to a message: recorded in D1 and told to both sides. */
  progress(conversation_id: number, reader: Side, state: "delivered" | "read", up_to_id: number): Promise<Conversation | null>;
  /** Operator: closes or reopens (audit-logged, with a system message both sides see). */
  setStatus(operator_id: number, conversation_id: number, to: "open" | "closed"): Promise<ActionResult>;
  /** Operator: assigns the conversation (audit-logged); the inbox hears it. */
  assign(operator_id: number, conversation_id: number, to_operator_id: number | null): Promise<ActionResult>;
  /** The guest's conversation was handed over: its guest pages are closed (they reconnect signed in). */
  handedOver(): Promise<void>;
}

export interface ServiceInboxApi extends Rpc.DurableObjectBranded {
  publish(message: ServerMessage): Promise<number>;
}

/** The Worker → object headers that say who an authenticated upgrade is (set by worker/ws.ts only). */
export const SIDE_HEADER = "x-service-side";
export const GUEST_HEADER = "x-service-guest";
export const CONVERSATION_HEADER = "x-service-conversation";
