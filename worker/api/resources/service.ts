/**
 * `/api/service/*`: the visitor's customer-service conversation (signed in, or a guest by the
 * `pl_guest` cookie), and `/api/user/kefu` (contacts plus the conversation's unread count).
 * Messages go through the conversation's Durable Object, which orders and fans them out.
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import { getContacts } from "../../domain/content/site";
import { MAX_UPLOAD_BYTES } from "../../domain/uploads/sniff";
import { storeUpload } from "../../domain/uploads/store";
import { uploadQuotaParams, withinUploadQuota } from "../../domain/uploads/quota";
import { attachContext, contextAllowed, conversationOf, newGuestToken, openConversation, type Conversation, type Visitor } from "../../domain/service/conversations";
import { adoptGuest, planHandOver } from "../../domain/service/handover";
import { conversationUploads, linkUpload, listMessages, unreadFor } from "../../domain/service/messages";
import { CONTEXT_KINDS, type Side } from "../../domain/service/rules";
import { admitGuest, guestLimitScale, type GuestThing } from "../../domain/service/guest-limits";
import { limiterNetworkOf } from "../../domain/identity/client";
import { guestCookie } from "../../service-cookie";
import { ApiError, ok, queueCookie, read } from "../envelope";
import { id } from "../fields";
import { isInProcessRequest } from "../../in-process-mark";
import type { AppEnv } from "../types";
import { conversationStub, conversationView, guestTokenOf, HistoryQuery, memberConversation, messageBody, ReadBody, SendBody, sendRefused, viewMessages, visitorOf } from "./service-shared";
import { currentRequestId, logError } from "../../observability/log";

const ContextInput = z.object({ kind: z.enum(CONTEXT_KINDS, { error: "errors.invalid_field" }), ref_id: id() });
const OpenBody = z.object({ context: ContextInput.optional(), context_kind: z.string().optional(), context_ref_id: z.unknown().optional() }).transform((b) => {
  // Forms send the context flat; JSON may nest it.
  if (b.context) return b.context;
  if (b.context_kind === undefined || b.context_kind === "") return null;
  const parsed = ContextInput.safeParse({ kind: b.context_kind, ref_id: b.context_ref_id });
  return parsed.success ? parsed.data : ("invalid" as const);
});
const UploadQuery = z.object({ conversation_id: id().optional() });

/** Pages call the API in-process (worker/api/in-process.ts), marked so; browsers never can be. */
const isInProcess = (c: Context<AppEnv>) => isInProcessRequest(c.req.raw.headers);

/** The caller's identity, creating a guest token for a first-time guest (cookie, and in data for pages). */
async function visitorOrNewGuest(c: Context<AppEnv>): Promise<{ visitor: Visitor; guest_token?: string }> {
  const visitor = await visitorOf(c);
  if (visitor) return { visitor };
  const { token, token_hash } = newGuestToken();
  queueCookie(c, await guestCookie.serialize(token));
  return { visitor: { kind: "guest", token_hash }, guest_token: token };
}

/**
 * One place of the guest windows for a new conversation or picture (decision 115); 429 with
 * `retry_after_ms` when the network's or everyone's are taken.
 */
async function limitGuest(c: Context<AppEnv>, thing: GuestThing, now_ms: number): Promise<void> {
  const network = limiterNetworkOf(c.req.header("cf-connecting-ip"));
  const r = await admitGuest(c.get("db"), thing, network, now_ms, guestLimitScale(c.env));
  if (r.status !== "ok") throw new ApiError(`errors.guest_${thing}s_${r.status}`, 429, {}, { retry_after_ms: r.retry_after_ms });
}

/** History from D1, after the conversation's object wrote what it delivered (nothing a socket showed is missing). */
export async function messagesAnswer(c: Context<AppEnv>, conversation: Conversation, side: Side) {
  const q = read(c, HistoryQuery);
  await conversationStub(c, conversation.id).flush();
  const page = await listMessages(c.get("db"), conversation.id, { before_id: q.before_id, after_id: q.after_id, limit: q.limit });
  // What the caller now holds from the other side counts as delivered to them.
  const newest = Math.max(0, ...page.rows.filter((m) => m.author === (side === "visitor" ? "operator" : "visitor")).map((m) => m.id));
  const delivered = side === "visitor" ? conversation.visitor_delivered_id : conversation.operator_delivered_id;
  const current = newest > delivered ? ((await conversationStub(c, conversation.id).progress(conversation.id, side, "delivered", newest, currentRequestId())) ?? conversation) : conversation;
  return { messages: viewMessages(page.rows, current, side), has_more: page.has_more, conversation: await conversationView(c, current, side) };
}

/** Stores an uploaded chat picture for `side` of the conversation (same sniffing and size rules as every upload). */
export async function servicePicture(c: Context<AppEnv>, conversation: Conversation, side: Side, user_id: number) {
  const file = c.get("input").file;
  if (!(file instanceof File)) throw new ApiError("errors.upload_missing");
  if (file.size > MAX_UPLOAD_BYTES) throw new ApiError("errors.upload_too_large", 413);
  const now_ms = Date.now();
  // A guest has no account to count against: their conversation's pictures are counted instead.
  if (side === "visitor" && user_id === 0 && !withinUploadQuota(await conversationUploads(c.get("db"), conversation.id, now_ms), file.size)) {
    throw new ApiError("errors.upload_quota", 429, uploadQuotaParams());
  }
  // ...and a new cookie is a new conversation: guests' pictures are also counted per network and in total.
  if (side === "visitor" && user_id === 0) await limitGuest(c, "upload", now_ms);
  const r = await storeUpload(c.get("db"), c.env.UPLOADS, user_id, new Uint8Array(await file.arrayBuffer()), now_ms);
  if (r.status === "too_large") throw new ApiError("errors.upload_too_large", 413);
  if (r.status === "empty") throw new ApiError("errors.upload_empty");
  if (r.status === "quota") throw new ApiError("errors.upload_quota", 429, uploadQuotaParams());
  if (r.status !== "ok") throw new ApiError("errors.upload_not_image", 415);
  await linkUpload(c.get("db"), r.upload.id, conversation.id, side, now_ms);
  return ok(c, { upload_id: r.upload.id, url: `/files/${r.upload.id}` }, "errors.uploaded");
}

export const serviceApi = new Hono<AppEnv>()
  .post("/open", async (c) => {
    const context = read(c, OpenBody);
    if (context === "invalid") throw new ApiError("errors.invalid_field", 200, { field: "context" }, { field: "context" });
    const { visitor, guest_token } = await visitorOrNewGuest(c);
    const db = c.get("db");
    const now_ms = Date.now();
    if (context && !(await contextAllowed(db, visitor, context))) throw new ApiError("errors.not_found", 404);
    // A guest's new conversation is counted per network and in total (a new cookie costs nothing).
    if (visitor.kind === "guest" && !(await conversationOf(db, visitor))) await limitGuest(c, "conversation", now_ms);
    const conversation = await openConversation(db, visitor, visitor.kind === "guest" ? c.get("locale") : null, now_ms);
    if (context) await attachContext(db, conversation.id, context, now_ms);
    return ok(c, { conversation: await conversationView(c, conversation, "visitor"), ...(guest_token && isInProcess(c) ? { guest_token } : {}) });
  })
  .on(["GET", "POST"], "/messages", async (c) => {
    const conversation = await memberConversation(c, read(c, HistoryQuery).conversation_id);
    return ok(c, await messagesAnswer(c, conversation, "visitor"));
  })
  .post("/send", async (c) => {
    const body = read(c, SendBody);
    const content = messageBody(body);
    const conversation = await memberConversation(c, body.conversation_id);
    // The same method a socket's `send` reaches: one sequencer, one de-duplication.
    const result = await conversationStub(c, conversation.id).send({ conversation_id: conversation.id, author: "visitor", client_message_id: body.client_message_id, operator_id: null, operator_name: null, ...content });
    if (result.status !== "ok") sendRefused(result);
    return ok(c, { message: viewMessages([result.message], conversation, "visitor")[0], duplicate: result.duplicate });
  })
  .post("/upload", async (c) => {
    const visitor = await visitorOf(c);
    const wanted = read(c, UploadQuery).conversation_id;
    const own = visitor ? await conversationOf(c.get("db"), visitor) : undefined;
    if (!visitor || !own || (wanted !== undefined && wanted !== own.id)) throw new ApiError("errors.not_found", 404);
    return servicePicture(c, own, "visitor", visitor.kind === "user" ? visitor.user_id : 0);
  })
  .post("/read", async (c) => {
    const body = read(c, ReadBody);
    const conversation = await memberConversation(c, body.conversation_id);
    const updated = (await conversationStub(c, conversation.id).progress(conversation.id, "visitor", "read", body.up_to_id, currentRequestId())) ?? conversation;
    return ok(c, { conversation: await conversationView(c, updated, "visitor") });
  });

/** `/api/user/kefu` (open): the contacts, and the caller's conversation with its unread count (nothing is created). */
export const kefuApi = new Hono<AppEnv>().on(["GET", "POST"], "/kefu", async (c) => {
  const db = c.get("db");
  const visitor = await visitorOf(c);
  const conversation = visitor ? await conversationOf(db, visitor) : undefined;
  if (conversation) await conversationStub(c, conversation.id).flush();
  const unread = conversation ? await unreadFor(db, conversation, "visitor") : 0;
  return ok(c, { ...(await getContacts(db)), conversation_id: conversation?.id ?? null, unread });
});

/**
 * Called by sign-in and registration: the guest's conversation (by `guest-token` or the
 * `pl_guest` cookie) follows the user, its guest pages are closed, and the cookie is cleared.
 */
export async function handOverAtSignIn(c: Context<AppEnv>, user_id: number): Promise<void> {
  const token = guestTokenOf(c);
  if (!token) return;
  try {
    const plan = await planHandOver(c.get("db"), await token, user_id);
    if (plan.status === "adopt" && (await adoptGuest(c.get("db"), plan.guest.id, user_id))) await conversationStub(c, plan.guest.id).handedOver();
    if (plan.status === "merge") {
      // The guest's object writes what it holds and stops taking messages; the user's gives the moved ones its next ids.
      await conversationStub(c, plan.guest.id).retire(plan.guest.id);
      await conversationStub(c, plan.own.id).absorb(plan.guest, plan.own);
    }
    // The token reads nothing any more: a direct client drops it (pages clear their own cookie).
    queueCookie(c, await guestCookie.serialize("", { maxAge: 0 }));
  } catch (err) {
    // The sign-in itself succeeded (its session exists): a failed hand-over must not turn it into
    // an error. The guest keeps the cookie and their conversation, and the next sign-in tries again.
    logError("service.handover_failed", { user_id, err });
  }
}
