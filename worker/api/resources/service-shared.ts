/** What the visitor's and the operator's customer-service routes share: who asks, and how things look. */
import type { Context } from "hono";
import { z } from "zod";
import { resolveSession } from "../../domain/identity/session";
import { contextsOf, findConversation, hashGuestToken, isMember, type Context as ConvContext, type Conversation, type Visitor } from "../../domain/service/conversations";
import { messageView, peerProgress, unreadFor, type MessageRow, type SendResult } from "../../domain/service/messages";
import { CLIENT_MESSAGE_ID_RE, checkText, clampLimit, MAX_TEXT_CHARS, type Side } from "../../domain/service/rules";
import type { LocaleKey } from "../../../locales/languages";
import { translate } from "../../i18n";
import { tokenFrom } from "../middleware/auth";
import { guestTokenFromCookie } from "../../service-cookie";
import { ApiError } from "../envelope";
import { id } from "../fields";
import type { AppEnv } from "../types";
import type { ServiceConversationApi } from "../../../durable-objects/service/conversation-api";

/** The caller on the visitor side: a valid user session first, else the guest token (header, then cookie). */
export async function visitorOf(c: Context<AppEnv>): Promise<Visitor | null> {
  const session = await resolveSession(c.get("db"), "user", { token: tokenFrom(c.req.raw.headers) }, Date.now());
  if (session.status === "ok" && session.subject) return { kind: "user", user_id: session.subject.id };
  const guest = guestTokenOf(c);
  return guest ? { kind: "guest", token_hash: hashGuestToken(await guest) } : null;
}

/** The guest token a request carries: `guest-token` header (pages, in-process) or the `pl_guest` cookie. */
export function guestTokenOf(c: Context<AppEnv>): Promise<string> | null {
  const header = c.req.header("guest-token");
  if (header && header.length <= 100) return Promise.resolve(header.trim());
  const cookie = c.req.header("cookie");
  if (!cookie?.includes("pl_guest=")) return null;
  return guestTokenFromCookie(cookie).then((t) => t ?? "");
}

/** The visitor's own conversation by id; anyone else's (or none) is the same not_found. */
export async function memberConversation(c: Context<AppEnv>, conversation_id: number): Promise<Conversation> {
  const visitor = await visitorOf(c);
  const conversation = await findConversation(c.get("db"), conversation_id);
  if (!visitor || !conversation || !isMember(conversation, visitor)) throw new ApiError("errors.not_found", 404);
  return conversation;
}

export function conversationStub(c: Context<AppEnv>, conversation_id: number): DurableObjectStub<ServiceConversationApi> {
  return c.env.SERVICE_CONVERSATION.get(c.env.SERVICE_CONVERSATION.idFromName(String(conversation_id)));
}

export function contextLabel(locale: LocaleKey, ctx: ConvContext) {
  return { ...ctx, label: translate(locale, `errors.service_context_${ctx.kind}`, { id: ctx.ref_id }) };
}

/** A conversation as `viewer` sees it (docs/customer-service.md); its unread count after the object's pending messages reached D1. */
export async function conversationView(c: Context<AppEnv>, conversation: Conversation, viewer: Side) {
  const db = c.get("db");
  await conversationStub(c, conversation.id).flush();
  const [unread, contexts] = await Promise.all([unreadFor(db, conversation, viewer), contextsOf(db, [conversation.id])]);
  const peer = peerProgress(conversation, viewer);
  return {
    id: conversation.id,
    status: conversation.status,
    unread,
    contexts: (contexts.get(conversation.id) ?? []).map((x) => contextLabel(c.get("locale"), x)),
    peer_read_id: peer.read_id,
    peer_delivered_id: Math.max(peer.delivered_id, peer.read_id),
    is_guest: conversation.user_id === null,
  };
}

export function viewMessages(rows: MessageRow[], conversation: Conversation, viewer: Side) {
  const peer = peerProgress(conversation, viewer);
  return rows.map((m) => messageView(m, peer));
}

export const HistoryQuery = z.object({
  conversation_id: id(),
  before_id: id().optional(),
  after_id: z.preprocess((v) => (v === "" || v === null ? undefined : v), z.coerce.number({ error: "errors.invalid_field" }).int("errors.invalid_field").min(0, "errors.invalid_field").optional()),
  limit: z.preprocess((v) => (v === "" || v === null || v === undefined ? undefined : Number(v)), z.number({ error: "errors.invalid_field" }).int("errors.invalid_field").min(1, "errors.invalid_field").max(50, "errors.invalid_field").optional()).transform(clampLimit),
});

export const SendBody = z.object({
  conversation_id: id(),
  client_message_id: z.string({ error: "errors.service_client_id_invalid" }).regex(CLIENT_MESSAGE_ID_RE, "errors.service_client_id_invalid"),
  text: z.string({ error: "errors.invalid_field" }).max(MAX_TEXT_CHARS * 8, "errors.service_text_too_long").optional(),
  upload_id: z.string({ error: "errors.invalid_field" }).max(64, "errors.service_picture_unknown").optional(),
});

export const ReadBody = z.object({ conversation_id: id(), up_to_id: z.preprocess((v) => (typeof v === "string" && /^\d{1,16}$/.test(v) ? Number(v) : v), z.number({ error: "errors.invalid_field" }).int("errors.invalid_field").min(0, "errors.invalid_field").max(Number.MAX_SAFE_INTEGER, "errors.invalid_field")) });

/**
 * The message's body: exactly one of a text (1..2,000 characters after trimming) and a picture
 * id (the conversation's object checks that the picture was uploaded into this conversation).
 */
export function messageBody(body: z.infer<typeof SendBody>): { text: string | null; upload_id: string | null } {
  const upload_id = body.upload_id?.trim() || null;
  const raw = body.text ?? "";
  if (upload_id && raw.trim() !== "") throw new ApiError("errors.invalid_field", 200, { field: "text" }, { field: "text" });
  if (upload_id) {
    if (!/^[0-9a-f]{32}$/.test(upload_id)) throw new ApiError("errors.service_picture_unknown");
    return { text: null, upload_id };
  }
  const checked = checkText(raw);
  if (checked.status !== "ok") {
    if (checked.status === "too_long") throw new ApiError("errors.service_text_too_long", 200, { max: MAX_TEXT_CHARS }, { max: MAX_TEXT_CHARS });
    throw new ApiError("errors.service_text_empty");
  }
  return { text: checked.text, upload_id: null };
}

/** A refused send as its localized error. */
export function sendRefused(result: Exclude<SendResult, { status: "ok" }>): never {
  if (result.status === "rate_limited") throw new ApiError("errors.service_rate_limited", 429, {}, { retry_after_ms: result.retry_after_ms });
  if (result.status === "closed") throw new ApiError("errors.service_closed");
  if (result.status === "picture_unknown") throw new ApiError("errors.service_picture_unknown");
  throw new ApiError("errors.not_found", 404);
}
