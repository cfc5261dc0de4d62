/**
 * The customer-service chat, as the pages hold it: the wire shapes of docs/customer-service.md
 * and one pure reducer that merges whatever arrives (first page, earlier pages, socket pushes,
 * catch-up after a reconnect, the answer to our own send) into one list without duplicates.
 * Pure so tests/unit/service/thread.test.ts can hold the de-duplication rules.
 */

export type Side = "visitor" | "operator";
export type Author = Side | "system";
export type DeliveryState = "sent" | "delivered" | "read";
export type ContextKind = "order" | "deposit" | "withdrawal" | "promotion";

export type ServiceMessage = {
  id: number;
  conversation_id: number;
  client_message_id: string | null;
  author: Author;
  operator_name: string | null;
  text: string | null;
  image_url: string | null;
  created_at_ms: number;
  state: DeliveryState;
};

export type ServiceContext = { kind: ContextKind; ref_id: number; label?: string; summary?: string };

export type Conversation = {
  id: number;
  status: "open" | "closed";
  unread: number;
  contexts: ServiceContext[];
  peer_read_id: number;
  peer_delivered_id: number;
  is_guest: boolean;
};

/** Limits the API enforces; the page counts down to them so nobody types into a refusal. */
export const MAX_TEXT = 2000;
export const COUNTER_FROM = 1800;
export const PAGE_SIZE = 30;

/** A message the viewer wrote and the server has not confirmed yet. */
export type Pending = {
  client_message_id: string;
  text: string | null;
  /** A local preview of a picture being sent (an object URL), else null. */
  image_url: string | null;
  file: File | null;
  created_at_ms: number;
  failed: string | null;
};

export type Thread = {
  messages: ServiceMessage[];
  pending: Pending[];
  has_more: boolean;
  peer_read_id: number;
  peer_delivered_id: number;
  peer_typing: boolean;
};

export type ThreadAction =
  | { type: "merge"; messages: ServiceMessage[]; has_more?: boolean }
  | { type: "pending"; pending: Pending }
  | { type: "failed"; client_message_id: string; error: string }
  | { type: "retry"; client_message_id: string }
  | { type: "discard"; client_message_id: string }
  | { type: "peer"; delivered_id?: number; read_id?: number }
  | { type: "typing"; typing: boolean }
  | { type: "reset"; thread: Thread };

export function emptyThread(conversation: Conversation | null, messages: ServiceMessage[] = [], has_more = false): Thread {
  return threadReducer(
    { messages: [], pending: [], has_more, peer_read_id: conversation?.peer_read_id ?? 0, peer_delivered_id: conversation?.peer_delivered_id ?? 0, peer_typing: false },
    { type: "merge", messages },
  );
}

export function threadReducer(state: Thread, action: ThreadAction): Thread {
  switch (action.type) {
    case "merge":
      return mergeMessages(state, action.messages, action.has_more);
    case "pending":
      if (state.pending.some((p) => p.client_message_id === action.pending.client_message_id)) return state;
      return { ...state, pending: [...state.pending, action.pending] };
    case "failed":
    case "retry": {
      const failed = action.type === "failed" ? action.error : null;
      return { ...state, pending: state.pending.map((p) => (p.client_message_id === action.client_message_id ? { ...p, failed } : p)) };
    }
    case "discard":
      return { ...state, pending: state.pending.filter((p) => p.client_message_id !== action.client_message_id) };
    case "peer":
      // Delivery only moves forward: an old socket frame must not untick a message.
      return {
        ...state,
        peer_delivered_id: Math.max(state.peer_delivered_id, action.delivered_id ?? 0, action.read_id ?? 0),
        peer_read_id: Math.max(state.peer_read_id, action.read_id ?? 0),
      };
    case "typing":
      return state.peer_typing === action.typing ? state : { ...state, peer_typing: action.typing };
    case "reset":
      return action.thread;
  }
}

/**
 * Adds messages by id (a message seen twice is kept once, the newer copy winning) and drops
 * the optimistic bubble whose client_message_id the server has now confirmed. `has_more` is
 * only given by a page of history, which is the only thing that knows.
 */
function mergeMessages(state: Thread, incoming: ServiceMessage[], has_more: boolean | undefined): Thread {
  if (incoming.length === 0) return has_more === undefined ? state : { ...state, has_more };
  const byId = new Map(state.messages.map((m) => [m.id, m]));
  for (const m of incoming) byId.set(m.id, m);
  const confirmed = new Set(incoming.map((m) => m.client_message_id).filter((id): id is string => id !== null));
  return {
    ...state,
    messages: [...byId.values()].sort((a, b) => a.id - b.id),
    pending: state.pending.filter((p) => !confirmed.has(p.client_message_id)),
    has_more: has_more ?? state.has_more,
  };
}

/** Whose bubble is on the right: the viewer's own side. */
export function isOwn(message: Pick<ServiceMessage, "author">, viewer: Side): boolean {
  return message.author === viewer;
}

/**
 * How far the other side got with one of the viewer's own messages: the server's state when
 * the message was loaded, moved forward by the read receipts that arrived since.
 */
export function deliveryOf(message: ServiceMessage, thread: Pick<Thread, "peer_read_id" | "peer_delivered_id">): DeliveryState {
  if (message.state === "read" || message.id <= thread.peer_read_id) return "read";
  if (message.state === "delivered" || message.id <= thread.peer_delivered_id) return "delivered";
  return "sent";
}

/**
 * Whether the conversation is open, as its newest messages tell: closing and reopening leave a
 * system note, a visitor writing reopens it, an operator can only write while it is open. Null
 * when the messages say nothing (then the loaded status stands).
 */
export function statusFromMessages(messages: ServiceMessage[]): "open" | "closed" | null {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (m.author === "system" && m.text === "closed") return "closed";
    if (m.author !== "system" || m.text === "reopened") return "open";
  }
  return null;
}

export function lastId(thread: Pick<Thread, "messages">): number {
  return thread.messages.length ? thread.messages[thread.messages.length - 1].id : 0;
}

export function oldestId(thread: Pick<Thread, "messages">): number | null {
  return thread.messages.length ? thread.messages[0].id : null;
}

/** The newest message the other side wrote: what "read up to" points at. */
export function lastPeerId(thread: Pick<Thread, "messages">, viewer: Side): number {
  for (let i = thread.messages.length - 1; i >= 0; i -= 1) if (!isOwn(thread.messages[i], viewer)) return thread.messages[i].id;
  return 0;
}

/** One id per message, made once when it is typed; a retry sends the same id (the API de-duplicates by it). */
export function newClientMessageId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `?context=order:123` → the context to attach, or null when it is anything else. */
export function parseContextParam(value: string | null): { kind: ContextKind; ref_id: number } | null {
  const m = /^(order|deposit|withdrawal|promotion):(\d{1,12})$/.exec(value ?? "");
  if (!m) return null;
  const ref_id = Number(m[2]);
  return ref_id > 0 ? { kind: m[1] as ContextKind, ref_id } : null;
}

export function contextParam(kind: ContextKind, ref_id: number): string {
  return `${kind}:${ref_id}`;
}

/** Where "Ask customer service" goes for one thing of the user's. */
export function serviceUrl(kind?: ContextKind, ref_id?: number): string {
  return kind && ref_id ? `/pages/me/sub/service?context=${contextParam(kind, ref_id)}` : "/pages/me/sub/service";
}

/** Characters left before the limit, shown only near it (null: not near). */
export function charsLeft(text: string): number | null {
  // Counted as the API counts (UTF-16 code units of the trimmed text).
  const n = text.trim().length;
  return n >= COUNTER_FROM ? MAX_TEXT - n : null;
}
