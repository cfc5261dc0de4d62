import { and, count, desc, eq, isNull, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { operators, profiles, service_canned, service_conversations, service_messages, users } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { userBalances } from "../ledger/balances";
import { formatUsdt } from "../money/units";
import { getPromotion } from "../promotions/promotions";
import { parseTexts, textFor } from "../promotions/texts";
import { DEFAULT_LOCALE, localeFromLang } from "../../../locales/languages";
import type { Context, Conversation } from "./conversations";
import type { MessageRow } from "./messages";

export type InboxFilter = "open" | "mine" | "unassigned" | "closed";

const unreadForOperator = sql<number>`(SELECT count(*) FROM service_messages m WHERE m.conversation_id = ${service_conversations.id} AND m.author = 'visitor' AND m.id > ${service_conversations.operator_read_id})`;

function filterWhere(filter: InboxFilter, operator_id: number): SQL | undefined {
  // Merged-away guest conversations are empty shells: never listed.
  const live = isNull(service_conversations.merged_into_id);
  if (filter === "closed") return and(live, eq(service_conversations.status, "closed"));
  const open = and(live, eq(service_conversations.status, "open"));
  if (filter === "mine") return and(open, eq(service_conversations.assigned_operator_id, operator_id));
  if (filter === "unassigned") return and(open, isNull(service_conversations.assigned_operator_id));
  return open;
}

/** The console's inbox: newest activity first, with each conversation's unread count. */
export async function listInbox(db: Db, opts: { filter: InboxFilter; operator_id: number; page: number; rows: number }) {
  const where = filterWhere(opts.filter, opts.operator_id);
  const items = await db
    .select({
      conversation: service_conversations,
      account: users.account,
      user_lang: users.lang,
      assigned_account: operators.account,
      unread: unreadForOperator,
    })
    .from(service_conversations)
    .leftJoin(users, eq(users.id, service_conversations.user_id))
    .leftJoin(operators, eq(operators.id, service_conversations.assigned_operator_id))
    .where(where)
    .orderBy(desc(sql`coalesce(${service_conversations.last_message_at_ms}, ${service_conversations.created_at_ms})`), desc(service_conversations.id))
    .limit(opts.rows)
    .offset((opts.page - 1) * opts.rows);
  const [{ total }] = await db.select({ total: count() }).from(service_conversations).where(where);
  return { items, total };
}

export type ActionResult = { status: "ok"; conversation: Conversation; system?: MessageRow } | { status: "not_found" | "state_conflict" | "operator_unknown" };

/**
 * Closes or reopens a conversation: the status, its audit entry and a system message the
 * visitor sees, in one batch. Runs in the conversation's Durable Object, which gives the system
 * message its id (`message_id`, the conversation's next) after writing its pending messages.
 */
export async function setConversationStatus(db: Db, operator_id: number, conversation_id: number, to: "open" | "closed", now_ms: number, message_id: number): Promise<ActionResult> {
  const current = await db.query.service_conversations.findFirst({ where: eq(service_conversations.id, conversation_id) });
  if (!current || current.merged_into_id !== null) return { status: "not_found" };
  if (current.status === to) return { status: "state_conflict" };
  const text = to === "closed" ? "closed" : "reopened";
  const [[conversation], [system]] = await db.batch([
    db.update(service_conversations).set({ status: to }).where(eq(service_conversations.id, conversation_id)).returning(),
    db.insert(service_messages).values({ id: message_id, conversation_id, author: "system", text, created_at_ms: now_ms }).returning(),
    auditInsert(db, { operator_id, action: to === "closed" ? "service.close" : "service.reopen", target: `conversation:${conversation_id}` }, now_ms),
  ]);
  return { status: "ok", conversation, system: { ...system, operator_name: null } };
}

/** Assigns the conversation to an enabled operator, or to nobody (null); audit-logged. */
export async function assignConversation(db: Db, operator_id: number, conversation_id: number, to_operator_id: number | null, now_ms: number): Promise<ActionResult> {
  if (to_operator_id !== null) {
    const target = await db.query.operators.findFirst({ where: eq(operators.id, to_operator_id) });
    if (!target || target.enabled !== 1) return { status: "operator_unknown" };
  }
  const before = await db.query.service_conversations.findFirst({ where: eq(service_conversations.id, conversation_id) });
  if (!before || before.merged_into_id !== null) return { status: "not_found" };
  const [[conversation]] = await db.batch([
    db.update(service_conversations).set({ assigned_operator_id: to_operator_id }).where(eq(service_conversations.id, conversation_id)).returning(),
    auditInsert(db, { operator_id, action: "service.assign", target: `conversation:${conversation_id}`, data: { from: before.assigned_operator_id, to: to_operator_id } }, now_ms),
  ]);
  return { status: "ok", conversation };
}

export type CannedReply = typeof service_canned.$inferSelect;

export async function listCanned(db: Db, lang: string | null): Promise<CannedReply[]> {
  return db.select().from(service_canned).where(lang ? eq(service_canned.lang, lang) : undefined).orderBy(service_canned.lang, service_canned.id);
}

export async function saveCanned(db: Db, operator_id: number, input: { id: number | null; lang: string; title: string; text: string }, now_ms: number): Promise<{ status: "ok"; item: CannedReply } | { status: "not_found" }> {
  const values = { lang: input.lang, title: input.title, text: input.text, updated_by: operator_id, updated_at_ms: now_ms };
  const write = input.id === null ? db.insert(service_canned).values(values).returning() : db.update(service_canned).set(values).where(eq(service_canned.id, input.id)).returning();
  const [rows] = await db.batch([write, auditInsert(db, { operator_id, action: "service.canned_save", target: input.id === null ? "canned:new" : `canned:${input.id}`, data: values }, now_ms)]);
  return rows.length ? { status: "ok", item: rows[0] } : { status: "not_found" };
}

export async function deleteCanned(db: Db, operator_id: number, id: number, now_ms: number): Promise<{ status: "ok" | "not_found" }> {
  const before = await db.query.service_canned.findFirst({ where: eq(service_canned.id, id) });
  if (!before) return { status: "not_found" };
  await db.batch([db.delete(service_canned).where(eq(service_canned.id, id)), auditInsert(db, { operator_id, action: "service.canned_delete", target: `canned:${id}`, data: before }, now_ms)]);
  return { status: "ok" };
}

/** The user beside the chat: who they are, their profile's review state and their balances. */
export async function userPanel(db: Db, user_id: number, locale: string) {
  const user = await db.query.users.findFirst({ where: eq(users.id, user_id) });
  if (!user) return null;
  const profile = await db.query.profiles.findFirst({ where: eq(profiles.user_id, user_id), columns: { status: true } });
  const b = await userBalances(db, user_id);
  const money = (micro: number) => formatUsdt(micro, locale);
  return {
    id: user.id,
    account: user.account,
    lang: user.lang,
    created_at_ms: user.created_at_ms,
    profile_status: profile?.status ?? "none",
    balances: { available: money(b.available_micro), locked_trade: money(b.locked_trade_micro), locked_pool: money(b.locked_pool_micro), locked_withdrawal: money(b.locked_withdrawal_micro) },
  };
}

/**
 * One line per context for the operator: what the order, deposit or withdrawal is and where
 * it stands (read from its own table, so it is current). Promotions: their title in the
 * operator's language.
 */
export async function contextSummaries(db: Db, contexts: Context[], locale: string) {
  const money = (micro: number) => `${formatUsdt(micro, locale)} USDT`;
  return Promise.all(
    contexts.map(async (ctx) => {
      let summary = `#${ctx.ref_id}`;
      if (ctx.kind === "order") {
        const o = await db.get<{ symbol: string; direction: string; stake_micro: number; status: string; seconds: number }>(sql`SELECT symbol, direction, stake_micro, status, seconds FROM orders WHERE id = ${ctx.ref_id}`);
        if (o) summary = `#${ctx.ref_id} ${o.symbol} ${o.direction} ${money(o.stake_micro)} ${o.seconds}s · ${o.status}`;
      } else if (ctx.kind === "deposit" || ctx.kind === "withdrawal") {
        const table = sql.raw(ctx.kind === "deposit" ? "deposits" : "withdrawals");
        const r = await db.get<{ amount_micro: number; status: string; destination: string }>(sql`SELECT amount_micro, status, destination FROM ${table} WHERE id = ${ctx.ref_id}`);
        if (r) summary = `#${ctx.ref_id} ${money(r.amount_micro)} · ${r.status} · ${r.destination}`;
      } else if (ctx.kind === "promotion") {
        const p = await getPromotion(db, ctx.ref_id);
        const texts = p ? parseTexts(p.texts_json) : null;
        if (texts) summary = `#${ctx.ref_id} ${textFor(texts, localeFromLang(locale) ?? DEFAULT_LOCALE).title}`;
      }
      return { ...ctx, summary };
    }),
  );
}
