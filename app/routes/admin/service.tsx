import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData, type ShouldRevalidateFunction } from "@remix-run/react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { langCodeOf, localeFromLang } from "../../../locales/languages";
import { ChatThread } from "../../components/service/thread";
import { ContextChips } from "../../components/service/context-chips";
import { CustomerPanel, type ContextSummary, type Customer } from "../../components/service/customer-panel";
import { CannedReplies, type Canned } from "../../components/service/canned-replies";
import { InboxList } from "../../components/service/inbox-list";
import type { Insert } from "../../components/service/composer";
import { adminApi, adminApiOrLogin } from "../../lib/admin.server";
import { pageParam, useAction, useOperator } from "../../lib/admin-console";
import { getLocale } from "../../lib/i18n.server";
import { readToken } from "../../lib/session.server";
import { historyAnswer, historyQuery, type MessagesPage } from "../../lib/service.server";
import { INBOX_FILTERS, useInbox, type InboxFilter, type InboxRow } from "../../lib/service-inbox";
import { useServiceChat } from "../../lib/service-chat";
import { statusFromMessages, type Conversation, type ServiceMessage } from "../../lib/service";
import { useRootData } from "../../root";
import serviceStyles from "../../styles/service.css";
export { clientAction } from "../../lib/client-action";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: serviceStyles }];

type Detail = { conversation: Conversation & { assigned_operator_id: number | null }; user: Customer | null; contexts: ContextSummary[] };
type Selected = Detail & { messages: ServiceMessage[]; has_more: boolean; canned: Canned[]; canned_lang: string };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const history = historyQuery(url);
  if (history) return historyAnswer(await adminApi<MessagesPage>(context, request, "/api/admin/service/messages", history));
  const filter = (INBOX_FILTERS as readonly string[]).includes(url.searchParams.get("filter") ?? "") ? (url.searchParams.get("filter") as InboxFilter) : "open";
  const page_no = pageParam(url);
  const id = /^\d{1,12}$/.test(url.searchParams.get("id") ?? "") ? Number(url.searchParams.get("id")) : null;
  const list = await adminApiOrLogin<{ items: InboxRow[]; total: number }>(context, request, "/api/admin/service/conversations", { filter, page_no });
  const row = list.code === 1 ? list.data.items.find((r) => r.id === id) : undefined;
  const selected = id === null ? null : await loadSelected(context, request, id, url.searchParams.get("lang") ?? row?.lang ?? null);
  return { filter, page_no, rows: list.code === 1 ? list.data.items : [], total: list.code === 1 ? list.data.total : 0, selected, error: list.code === 1 ? null : list.msg };
}

/**
 * The open conversation: who, its messages, and canned replies in the customer's language (a
 * user's saved one; a guest's as the list knows it; else the operator's own).
 */
async function loadSelected(context: LoaderFunctionArgs["context"], request: Request, id: number, row_lang: string | null): Promise<Selected | { error: string }> {
  const [detail, page] = await Promise.all([
    adminApi<Detail>(context, request, "/api/admin/service/conversation", { id }),
    adminApi<MessagesPage>(context, request, "/api/admin/service/messages", { conversation_id: id }),
  ]);
  if (detail.code !== 1) return { error: detail.msg };
  if (page.code !== 1) return { error: page.msg };
  const canned_lang = localeFromLang(detail.data.user?.lang ?? row_lang ?? "") ?? (await getLocale(request));
  const canned = await adminApi<{ items: Canned[] }>(context, request, "/api/admin/service/canned", { lang: canned_lang });
  return { ...detail.data, messages: page.data.messages, has_more: page.data.has_more, canned: canned.code === 1 ? canned.data.items : [], canned_lang };
}

const SIMPLE = new Set(["assign", "close", "reopen", "canned_save", "canned_delete"]);

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const field = (n: string) => (form.get(n) === null ? undefined : String(form.get(n)));
  if (intent === "upload") return upload(context, request, form);
  if (intent === "send") {
    return adminApi(context, request, "/api/admin/service/send", { conversation_id: field("conversation_id"), client_message_id: field("client_message_id"), text: field("text"), upload_id: field("upload_id") });
  }
  if (!SIMPLE.has(intent)) return { status: 400, code: 0 as const, msg: "", data: null };
  const body: Record<string, unknown> = Object.fromEntries([...form.entries()].filter(([k]) => k !== "intent").map(([k, v]) => [k, String(v)]));
  // "Unassign" sends an empty operator: the API takes null.
  if (intent === "assign" && body.operator_id === "") body.operator_id = null;
  return adminApi(context, request, `/api/admin/service/${intent}`, body);
}

/** A picture for the customer, forwarded as multipart (adminApi sends JSON). */
async function upload(context: ActionFunctionArgs["context"], request: Request, form: FormData) {
  const body = new FormData();
  body.set("conversation_id", String(form.get("conversation_id") ?? ""));
  const file = form.get("file");
  if (file instanceof File) body.set("file", file);
  const [token, locale] = await Promise.all([readToken(request, "operator"), getLocale(request)]);
  const res = await context.api("/api/admin/service/upload", { body, token, lang: langCodeOf(locale) });
  return { status: res.status, ...res.body };
}

/** Messages live in the thread's own state; assignment, closing and canned replies reload the page. */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formData, defaultShouldRevalidate }) => {
  const intent = formData?.get("intent");
  if (intent === "send" || intent === "upload") return false;
  return defaultShouldRevalidate;
};

/** The operator inbox: conversations on the left, the chat in the middle, the customer and canned replies on the right. */
export default function ServiceInbox() {
  const { t } = useTranslation("service");
  const data = useLoaderData<typeof loader>() as Exclude<Awaited<ReturnType<typeof loader>>, { page: unknown }>;
  const locale = useRootData()?.locale ?? "en";
  const inbox = useInbox(data.rows);
  const href = (q: { filter?: InboxFilter; id?: number; lang?: string }) => {
    const next = new URLSearchParams({ filter: q.filter ?? data.filter });
    if (q.id !== undefined) next.set("id", String(q.id));
    // The customer's language rides in the URL: a guest's is only known to the list, and the
    // conversation may leave the list's filter (closed) while it stays open here.
    if (q.lang) next.set("lang", q.lang);
    return `/admin/service?${next}`;
  };
  const selected = data.selected;
  return (
    <>
      <h1>
        {t("inbox.title")} <span className="sv-live">{inbox.connected ? t("inbox.live") : t("reconnecting")}</span>
      </h1>
      {data.error ? <p className="sv-notice">{data.error}</p> : null}
      <div className="sv-inbox">
        <InboxList rows={inbox.rows} filter={data.filter} selected={selected && "conversation" in selected ? selected.conversation.id : null} locale={locale} href={href} />
        {selected === null ? (
          <section className="sv-pane">
            <p className="sv-pick">{t("inbox.pick")}</p>
          </section>
        ) : "error" in selected ? (
          <section className="sv-pane">
            <p className="sv-pick">{selected.error}</p>
          </section>
        ) : (
          <ConversationPane key={selected.conversation.id} selected={selected} locale={locale} assignee={assigneeName(selected.conversation.assigned_operator_id, inbox.rows)} />
        )}
      </div>
    </>
  );
}

/** The assigned operator's account, as the list knows it (the detail carries only the id). */
function assigneeName(operator_id: number | null, rows: InboxRow[]): string | null {
  if (operator_id === null) return null;
  for (const r of rows) if (r.assigned_operator?.id === operator_id && r.assigned_operator.account) return r.assigned_operator.account;
  return `#${operator_id}`;
}

function ConversationPane({ selected, locale, assignee }: { selected: Selected; locale: string; assignee: string | null }) {
  const { t } = useTranslation("service");
  const operator = useOperator();
  const { conversation } = selected;
  const [insert, setInsert] = useState<Insert | null>(null);
  const chat = useServiceChat({
    viewer: "operator",
    conversation,
    initial: selected.messages,
    has_more: selected.has_more,
    historyUrl: (p) => `/admin/service?${new URLSearchParams({ id: String(conversation.id), ...p })}`,
    lang: locale,
  });
  // Closing, reopening and a visitor's message change the status live; the list reload follows.
  const status = statusFromMessages(chat.thread.messages) ?? conversation.status;
  const closed = status === "closed";
  const who = selected.user ? selected.user.account : t("inbox.guest", { id: conversation.id });
  return (
    <>
      <section className="sv-pane" aria-label={who} data-testid="sv-conversation">
        <header className="sv-pane-head">
          <h2>{who}</h2>
          <span className="sv-live" data-testid="sv-assignee">
            {assignee === null ? t("inbox.unassigned") : t("inbox.assigned_to", { name: conversation.assigned_operator_id === operator?.id ? operator.account : assignee })}
          </span>
          <Controls conversation={{ ...conversation, status }} me={operator?.id ?? null} />
        </header>
        <ChatThread
          viewer="operator"
          socketSend={chat.sendMessage}
          thread={chat.thread}
          dispatch={chat.dispatch}
          conversationId={conversation.id}
          onConversation={() => undefined}
          loadEarlier={chat.loadEarlier}
          loadingEarlier={chat.loadingEarlier}
          typing={chat.typing}
          locale={locale}
          scroll="box"
          above={<ContextChips contexts={conversation.contexts} />}
          composer={closed ? <p className="sv-notice">{t("inbox.closed_note")}</p> : undefined}
          insert={insert}
          empty={<p className="sv-welcome">{t("inbox.no_messages")}</p>}
        />
      </section>
      <aside className="sv-pane sv-side">
        <CustomerPanel user={selected.user} contexts={selected.contexts} locale={locale} />
        <CannedReplies items={selected.canned} lang={selected.canned_lang} onInsert={(text) => setInsert((now) => ({ text, n: (now?.n ?? 0) + 1 }))} />
      </aside>
    </>
  );
}

/** Assign to me / unassign, close / reopen: each audit-logged by the API. */
function Controls({ conversation, me }: { conversation: Detail["conversation"]; me: number | null }) {
  const { t } = useTranslation("service");
  const act = useAction();
  const submit = (intent: string, extra: Record<string, string> = {}) => act.fetcher.submit({ intent, conversation_id: String(conversation.id), ...extra }, { method: "post" });
  const mine = conversation.assigned_operator_id !== null && conversation.assigned_operator_id === me;
  return (
    <>
      {mine ? (
        <button type="button" className="btn btn-plain" disabled={act.busy} onClick={() => submit("assign", { operator_id: "" })} data-testid="sv-unassign">
          {t("inbox.unassign")}
        </button>
      ) : (
        <button type="button" className="btn btn-plain" disabled={act.busy || me === null} onClick={() => submit("assign", { operator_id: String(me) })} data-testid="sv-assign-me">
          {t("inbox.assign_me")}
        </button>
      )}
      {conversation.status === "open" ? (
        <button type="button" className="btn btn-danger" disabled={act.busy} onClick={() => submit("close")} data-testid="sv-close">
          {t("inbox.close")}
        </button>
      ) : (
        <button type="button" className="btn btn-primary" disabled={act.busy} onClick={() => submit("reopen")} data-testid="sv-reopen">
          {t("inbox.reopen")}
        </button>
      )}
    </>
  );
}
