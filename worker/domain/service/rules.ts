/**
 * Customer-service rules as plain functions: text limits, client message ids, the visitor's
 * rate limit, and how far a message got. No I/O, so the unit tests cover them directly.
 */

export const MAX_TEXT_CHARS = 2000;
export const RATE_LIMIT = { messages: 20, window_ms: 60_000 } as const;
export const HISTORY_PAGE = { default: 30, max: 50 } as const;
export const CONTEXT_KINDS = ["order", "deposit", "withdrawal", "promotion"] as const;
export type ContextKind = (typeof CONTEXT_KINDS)[number];
export type Side = "visitor" | "operator";
export type Author = Side | "system";
export type DeliveryState = "sent" | "delivered" | "read";

/** Made by the page once per message and reused on every retry, so a resend is recognised. */
export const CLIENT_MESSAGE_ID_RE = /^[A-Za-z0-9_-]{8,64}$/;

export type TextCheck = { status: "ok"; text: string } | { status: "empty" | "too_long" };

/** Trimmed text of 1..2,000 characters (counted as code points, as people count them). */
export function checkText(raw: string): TextCheck {
  const text = raw.trim();
  if (text === "") return { status: "empty" };
  if ([...text].length > MAX_TEXT_CHARS || text.length > MAX_TEXT_CHARS * 2) return { status: "too_long" };
  return { status: "ok", text };
}

/**
 * The visitor's rate limit over the messages they sent in the last minute (their times):
 * refused while 20 or more are in the window, until the oldest of them leaves it.
 */
export function rateCheck(recent: { count: number; oldest_ms: number | null }, now_ms: number): { status: "ok" } | { status: "rate_limited"; retry_after_ms: number } {
  if (recent.count < RATE_LIMIT.messages) return { status: "ok" };
  const oldest = recent.oldest_ms ?? now_ms;
  return { status: "rate_limited", retry_after_ms: Math.max(1, oldest + RATE_LIMIT.window_ms - now_ms) };
}

export const otherSide = (side: Side): Side => (side === "visitor" ? "operator" : "visitor");

/** How far the other side got with a message: read, delivered (received) or only sent. */
export function deliveryState(message_id: number, peer: { delivered_id: number; read_id: number }): DeliveryState {
  if (message_id <= peer.read_id) return "read";
  if (message_id <= Math.max(peer.delivered_id, peer.read_id)) return "delivered";
  return "sent";
}

/** The inbox's one-line preview: the text's start; "" for a picture (the console shows its word for it, in its language). */
export function previewOf(text: string | null): string {
  return text ? [...text.replace(/\s+/g, " ")].slice(0, 80).join("") : "";
}

/** A history page's bounds, from the request's optional before/after ids and limit. */
export function clampLimit(limit: number | undefined): number {
  if (!limit || !Number.isInteger(limit) || limit < 1) return HISTORY_PAGE.default;
  return Math.min(limit, HISTORY_PAGE.max);
}

/**
 * Message ids are handed out by the conversation's Durable Object without asking D1: each
 * conversation owns the range after `conversation_id * MESSAGE_ID_SPAN` (about a million messages,
 * and ids stay exact integers for 2^33 conversations), so ascending id is still the conversation's
 * order, and ids are unique across conversations. Ids written before (D1's autoincrement) are
 * all below every conversation's range, so they stay first.
 */
export const MESSAGE_ID_SPAN = 2 ** 20;

/** The id after `last_id` in the conversation's range. */
export function nextMessageId(conversation_id: number, last_id: number): number {
  return Math.max(conversation_id * MESSAGE_ID_SPAN, last_id) + 1;
}

export type SendCheck =
  | { status: "ok"; text: string | null; upload_id: string | null }
  | { status: "client_id_invalid" | "empty" | "too_long" | "both" | "picture_unknown" };

/**
 * A message's shape, before it is ordered: a valid client id and exactly one of a text
 * (1..2,000 characters after trimming) and a picture id (32 hex digits, checked against the
 * conversation's uploads by the caller).
 */
export function checkSend(input: { client_message_id: string; text?: string | null; upload_id?: string | null }): SendCheck {
  if (!CLIENT_MESSAGE_ID_RE.test(input.client_message_id)) return { status: "client_id_invalid" };
  const upload_id = input.upload_id?.trim() || null;
  const raw = input.text ?? "";
  if (upload_id && raw.trim() !== "") return { status: "both" };
  if (upload_id) return /^[0-9a-f]{32}$/.test(upload_id) ? { status: "ok", text: null, upload_id } : { status: "picture_unknown" };
  const checked = checkText(raw);
  return checked.status === "ok" ? { status: "ok", text: checked.text, upload_id: null } : checked;
}
