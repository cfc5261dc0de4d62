/**
 * `/api/admin/service/*`: the console's customer-service inbox. Operators read and answer any
 * conversation; every message records its operator, and assignment, closing, reopening and
 * canned-reply changes are audit-logged.
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import { LANGUAGES } from "../../../locales/languages";
import { contextsOf, findConversation, type Conversation } from "../../domain/service/conversations";
import { listMessages } from "../../domain/service/messages";
import { contextSummaries, deleteCanned, listCanned, listInbox, saveCanned, userPanel, type ActionResult, type CannedReply } from "../../domain/service/operator";
import { MAX_TEXT_CHARS } from "../../domain/service/rules";
import { requireOperator } from "../middleware/auth";
import { translate } from "../../i18n";
import { ApiError, ok, read } from "../envelope";
import { id, optionalId, pagination, text } from "../fields";
import type { AppEnv } from "../types";
import { servicePicture } from "./service";
import { contextLabel, conversationStub, conversationView, HistoryQuery, messageBody, ReadBody, SendBody, sendRefused, viewMessages } from "./service-shared";
import { currentRequestId } from "../../observability/log";

const LOCALE_KEYS = LANGUAGES.map((l) => l.key) as [string, ...string[]];
const ListQuery = z.object({ filter: z.enum(["open", "mine", "unassigned", "closed"], { error: "errors.invalid_field" }).default("open"), ...pagination });
const ById = z.object({ id: id() });
const ConversationBody = z.object({ conversation_id: id() });
const AssignBody = ConversationBody.extend({ operator_id: optionalId() });
const CannedQuery = z.object({ lang: z.enum(LOCALE_KEYS, { error: "errors.invalid_field" }).optional() });
const CannedBody = z.object({ id: optionalId(), lang: z.enum(LOCALE_KEYS, { error: "errors.invalid_field" }), title: text({ max: 100 }), text: text({ max: MAX_TEXT_CHARS, invalid: "errors.service_text_too_long" }) });

/** Any live conversation (not a guest shell merged away at hand-over). */
async function liveConversation(c: Context<AppEnv>, conversation_id: number): Promise<Conversation> {
  const conversation = await findConversation(c.get("db"), conversation_id);
  if (!conversation || conversation.merged_into_id !== null) throw new ApiError("errors.not_found", 404);
  return conversation;
}

async function operatorView(c: Context<AppEnv>, conversation: Conversation) {
  return { ...(await conversationView(c, conversation, "operator")), assigned_operator_id: conversation.assigned_operator_id };
}

const ACTION_ERRORS = { not_found: () => new ApiError("errors.not_found", 404), state_conflict: () => new ApiError("errors.state_conflict"), operator_unknown: () => new ApiError("errors.service_operator_unknown") };

async function actionAnswer(c: Context<AppEnv>, result: ActionResult) {
  if (result.status !== "ok") throw ACTION_ERRORS[result.status]();
  return ok(c, { conversation: await operatorView(c, result.conversation) }, "errors.saved");
}

async function inboxRows(c: Context<AppEnv>) {
  const q = read(c, ListQuery);
  const { items, total } = await listInbox(c.get("db"), { filter: q.filter, operator_id: c.get("operator").id, page: q.page_no, rows: q.row });
  const contexts = await contextsOf(c.get("db"), items.map((r) => r.conversation.id));
  const rows = items.map((r) => ({
    id: r.conversation.id,
    who: r.account ?? `guest #${r.conversation.id}`,
    user_id: r.conversation.user_id,
    lang: r.user_lang ?? r.conversation.guest_lang,
    status: r.conversation.status,
    assigned_operator: r.conversation.assigned_operator_id === null ? null : { id: r.conversation.assigned_operator_id, account: r.assigned_account ?? "" },
    unread: Number(r.unread),
    last_message_preview: previewText(c, r.conversation),
    last_message_at_ms: r.conversation.last_message_at_ms,
    contexts: (contexts.get(r.conversation.id) ?? []).map((x) => contextLabel(c.get("locale"), x)),
  }));
  return { items: rows, total };
}

/** The stored preview, or the word for a picture in the console's language (a picture has no text). */
function previewText(c: Context<AppEnv>, conversation: Conversation): string {
  if (conversation.last_message_preview || conversation.last_message_at_ms === null) return conversation.last_message_preview;
  return translate(c.get("locale"), "errors.service_picture_preview");
}

const cannedOut = (r: CannedReply) => ({ id: r.id, lang: r.lang, title: r.title, text: r.text });

export const adminServiceApi = new Hono<AppEnv>()
  .use("*", requireOperator)
  .on(["GET", "POST"], "/conversations", async (c) => ok(c, await inboxRows(c)))
  .on(["GET", "POST"], "/conversation", async (c) => {
    const id = read(c, ById).id;
    // Its status and last message as of every message its object delivered.
    await conversationStub(c, id).flush();
    const conversation = await liveConversation(c, id);
    const db = c.get("db");
    const contexts = (await contextsOf(db, [conversation.id])).get(conversation.id) ?? [];
    const user = conversation.user_id === null ? null : await userPanel(db, conversation.user_id, c.get("locale"));
    return ok(c, { conversation: await operatorView(c, conversation), user, contexts: await contextSummaries(db, contexts, c.get("locale")) });
  })
  .on(["GET", "POST"], "/messages", async (c) => {
    const q = read(c, HistoryQuery);
    const conversation = await liveConversation(c, q.conversation_id);
    // What the conversation's object delivered is in D1 before it is read.
    await conversationStub(c, conversation.id).flush();
    const page = await listMessages(c.get("db"), conversation.id, { before_id: q.before_id, after_id: q.after_id, limit: q.limit });
    const newest = Math.max(0, ...page.rows.filter((m) => m.author === "visitor").map((m) => m.id));
    const current = newest > conversation.operator_delivered_id ? ((await conversationStub(c, conversation.id).progress(conversation.id, "operator", "delivered", newest, currentRequestId())) ?? conversation) : conversation;
    return ok(c, { messages: viewMessages(page.rows, current, "operator"), has_more: page.has_more, conversation: await operatorView(c, current) });
  })
  .post("/send", async (c) => {
    const body = read(c, SendBody);
    const content = messageBody(body);
    const operator = c.get("operator");
    const conversation = await liveConversation(c, body.conversation_id);
    // The same method an operator socket's `send` reaches: one sequencer, one de-duplication.
    const result = await conversationStub(c, conversation.id).send({ conversation_id: conversation.id, author: "operator", client_message_id: body.client_message_id, operator_id: operator.id, operator_name: operator.account, ...content });
    if (result.status !== "ok") sendRefused(result);
    return ok(c, { message: viewMessages([result.message], conversation, "operator")[0], duplicate: result.duplicate });
  })
  .post("/read", async (c) => {
    const body = read(c, ReadBody);
    const conversation = await liveConversation(c, body.conversation_id);
    const updated = (await conversationStub(c, conversation.id).progress(conversation.id, "operator", "read", body.up_to_id, currentRequestId())) ?? conversation;
    return ok(c, { conversation: await operatorView(c, updated) });
  })
  .post("/upload", async (c) => {
    const conversation = await liveConversation(c, read(c, ConversationBody).conversation_id);
    // Operators are not users: their pictures belong to no user (0) and are shared through the conversation.
    return servicePicture(c, conversation, "operator", 0);
  })
  .post("/assign", async (c) => {
    const body = read(c, AssignBody);
    const conversation = await liveConversation(c, body.conversation_id);
    return actionAnswer(c, await conversationStub(c, conversation.id).assign(c.get("operator").id, conversation.id, body.operator_id, currentRequestId()));
  })
  .post("/close", async (c) => {
    const conversation = await liveConversation(c, read(c, ConversationBody).conversation_id);
    return actionAnswer(c, await conversationStub(c, conversation.id).setStatus(c.get("operator").id, conversation.id, "closed", currentRequestId()));
  })
  .post("/reopen", async (c) => {
    const conversation = await liveConversation(c, read(c, ConversationBody).conversation_id);
    return actionAnswer(c, await conversationStub(c, conversation.id).setStatus(c.get("operator").id, conversation.id, "open", currentRequestId()));
  })
  .on(["GET", "POST"], "/canned", async (c) => ok(c, { items: (await listCanned(c.get("db"), read(c, CannedQuery).lang ?? null)).map(cannedOut) }))
  .post("/canned_save", async (c) => {
    const body = read(c, CannedBody);
    const r = await saveCanned(c.get("db"), c.get("operator").id, body, Date.now());
    if (r.status !== "ok") throw new ApiError("errors.not_found", 404);
    return ok(c, { item: cannedOut(r.item) }, "errors.saved");
  })
  .post("/canned_delete", async (c) => {
    const r = await deleteCanned(c.get("db"), c.get("operator").id, read(c, ById).id, Date.now());
    if (r.status !== "ok") throw new ApiError("errors.not_found", 404);
    return ok(c, null, "errors.deleted");
  });
