import { data, redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData, type ShouldRevalidateFunction } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { AppLink, Screen } from "../../components/nav";
import { useCopy } from "../../components/ui";
import { ChatThread } from "../../components/service/thread";
import { ContextChips } from "../../components/service/context-chips";
import { ensureConversation, historyAnswer, historyQuery, visitorApi, type MessagesPage } from "../../lib/service.server";
import { setGuestCookie } from "../../lib/service-cookie.server";
import { useServiceChat } from "../../lib/service-chat";
import { setServiceUnread } from "../../lib/service-unread";
import { parseContextParam, type Conversation, type ServiceMessage } from "../../lib/service";
import { loginUrl } from "../../lib/guard";
import { useRootData } from "../../root";
import serviceStyles from "../../styles/service.css";
export { clientAction } from "../../lib/client-action";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: serviceStyles }];

type Kefu = { wechat: string; mobile: string; email: string; hours: string; conversation_id: number | null; unread: number };
type PageData = {
  contacts: { wechat: string; mobile: string };
  conversation: Conversation | null;
  messages: ServiceMessage[];
  has_more: boolean;
  context_error: string | null;
};

/**
 * Three reads share this URL: the page itself; `?after_id=` / `?before_id=` (a page of history
 * for the live thread); `?unread=1` (the me tab's badge count).
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const history = historyQuery(url);
  if (history) return historyAnswer(await visitorApi<MessagesPage>(context, request, "/api/service/messages", history));
  if (url.searchParams.get("unread") === "1") {
    const kefu = await visitorApi<Kefu>(context, request, "/api/user/kefu");
    return { unread: kefu.code === 1 ? kefu.data.unread : 0 };
  }
  const context_error = url.searchParams.has("context") ? await attachContext(context, request, url) : null;
  return pageData(context, request, context_error);
}

/**
 * `?context=order:123` (from "Ask customer service"): attaches it and comes back to the plain
 * URL, so a reload does not attach it again. A refusal is shown on the page; a malformed
 * parameter (not a link of ours) just opens the chat.
 */
async function attachContext(context: LoaderFunctionArgs["context"], request: Request, url: URL): Promise<string> {
  const wanted = parseContextParam(url.searchParams.get("context"));
  if (!wanted) throw redirect(url.pathname);
  const res = await visitorApi<{ guest_token?: string }>(context, request, "/api/service/open", { context: wanted });
  if (res.code !== 1) return res.msg;
  const headers = res.data.guest_token ? { "set-cookie": await setGuestCookie(request, res.data.guest_token) } : undefined;
  throw redirect(url.pathname, { headers });
}

async function pageData(context: LoaderFunctionArgs["context"], request: Request, context_error: string | null): Promise<PageData> {
  const kefu = await visitorApi<Kefu>(context, request, "/api/user/kefu");
  const contacts = kefu.code === 1 ? { wechat: kefu.data.wechat, mobile: kefu.data.mobile } : { wechat: "", mobile: "" };
  const conversation_id = kefu.code === 1 ? kefu.data.conversation_id : null;
  if (conversation_id === null) return { contacts, conversation: null, messages: [], has_more: false, context_error };
  const page = await visitorApi<MessagesPage>(context, request, "/api/service/messages", { conversation_id });
  if (page.code !== 1) return { contacts, conversation: null, messages: [], has_more: false, context_error: context_error ?? page.msg };
  const conversation = await readOnOpen(context, request, page.data);
  return { contacts, conversation, messages: page.data.messages, has_more: page.data.has_more, context_error };
}

/**
 * Opening the chat reads it: the unread count (the me tab's badge) is settled before the page
 * is drawn, not only once the socket has told the server.
 */
async function readOnOpen(context: LoaderFunctionArgs["context"], request: Request, page: MessagesPage): Promise<Conversation> {
  const up_to_id = Math.max(0, ...page.messages.filter((m) => m.author !== "visitor").map((m) => m.id));
  if (page.conversation.unread === 0 || up_to_id === 0) return page.conversation;
  const res = await visitorApi<{ conversation: Conversation }>(context, request, "/api/service/read", { conversation_id: page.conversation.id, up_to_id });
  return res.code === 1 ? res.data.conversation : page.conversation;
}

/**
 * `send` and `upload`, each opening the conversation first when this visitor has none yet
 * (a guest then gets the `pl_guest` cookie with the answer).
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const opened = await ensureConversation(context, request, String(form.get("conversation_id") ?? ""));
  if (!opened.ok) return opened.answer;
  const headers = opened.cookie ? { "set-cookie": opened.cookie } : undefined;
  const answer = await (intent === "upload" ? upload(form, opened.conversation_id) : send(form, opened.conversation_id));
  const withConversation = answer.code === 1 && opened.conversation ? { ...answer, data: { ...answer.data, conversation: opened.conversation } } : answer;
  return data(withConversation, { headers });

  function upload(f: FormData, conversation_id: number) {
    const body = new FormData();
    body.set("conversation_id", String(conversation_id));
    const file = f.get("file");
    if (file instanceof File) body.set("file", file);
    return visitorApi<{ upload_id: string; url: string }>(context, request, "/api/service/upload", body, opened.ok ? opened.guest : null);
  }
  function send(f: FormData, conversation_id: number) {
    const field = (n: string) => (f.get(n) === null ? undefined : String(f.get(n)));
    return visitorApi<{ message: ServiceMessage; duplicate: boolean }>(
      context,
      request,
      "/api/service/send",
      { conversation_id, client_message_id: field("client_message_id"), text: field("text"), upload_id: field("upload_id") },
      opened.ok ? opened.guest : null,
    );
  }
}

/** The thread holds its own state: sending and reading must not reload the page. */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formMethod, defaultShouldRevalidate, currentUrl, nextUrl }) => {
  if (formMethod === "POST" && currentUrl.pathname === nextUrl.pathname) return false;
  return defaultShouldRevalidate;
};

/** The customer-service chat, open without login; a guest's conversation follows them into their account. */
export default function ServicePage() {
  const { t } = useTranslation("service");
  const loaded = useLoaderData<typeof loader>() as PageData;
  const root = useRootData();
  const locale = root?.locale ?? "en";
  const [conversation, setConversation] = useState(loaded.conversation);
  const chat = useServiceChat({
    viewer: "visitor",
    conversation,
    initial: loaded.messages,
    has_more: loaded.has_more,
    historyUrl: (p) => `/pages/me/sub/service?${new URLSearchParams({ conversation_id: String(conversation?.id ?? ""), ...p })}`,
    onHandedOver: () => window.location.reload(),
    lang: locale,
  });
  // Looking at the conversation reads it: the me tab's badge goes out.
  useEffect(() => setServiceUnread(0), [chat.thread.messages.length]);

  return (
    <Screen title={t("title")} back>
      <ServiceHeader contacts={loaded.contacts} guest={!root?.user} reconnecting={chat.reconnecting} />
      {loaded.context_error ? (
        <p className="sv-notice" role="alert" data-testid="sv-context-error">
          {loaded.context_error}
        </p>
      ) : null}
      <ChatThread
        viewer="visitor"
        socketSend={chat.sendMessage}
        thread={chat.thread}
        dispatch={chat.dispatch}
        conversationId={conversation?.id ?? null}
        onConversation={(c) => setConversation((now) => now ?? c)}
        loadEarlier={chat.loadEarlier}
        loadingEarlier={chat.loadingEarlier}
        typing={chat.typing}
        locale={locale}
        scroll="window"
        above={<ContextChips contexts={conversation?.contexts ?? []} />}
        empty={<p className="sv-welcome">{t("welcome")}</p>}
      />
    </Screen>
  );
}

/** The other ways to reach us, and for a guest the reminder that signing in keeps the conversation. */
function ServiceHeader({ contacts, guest, reconnecting }: { contacts: PageData["contacts"]; guest: boolean; reconnecting: boolean }) {
  const { t } = useTranslation("service");
  const copy = useCopy();
  return (
    <section className="sv-header" data-testid="sv-contacts">
      {contacts.wechat || contacts.mobile ? (
        <dl className="sv-contacts">
          {contacts.wechat ? (
            <div>
              <dt>{t("contact_wechat")}</dt>
              <dd>
                <button type="button" className="link" onClick={() => copy(contacts.wechat)}>
                  {contacts.wechat}
                </button>
              </dd>
            </div>
          ) : null}
          {contacts.mobile ? (
            <div>
              <dt>{t("contact_mobile")}</dt>
              <dd>
                <a href={`tel:${contacts.mobile.replace(/[^\d+]/g, "")}`}>{contacts.mobile}</a>
              </dd>
            </div>
          ) : null}
        </dl>
      ) : null}
      {guest ? (
        <p className="sv-guest" data-testid="sv-guest-note">
          {t("guest_note")}{" "}
          <AppLink to={loginUrl("/pages/me/sub/service")} data-testid="sv-sign-in">
            {t("sign_in")}
          </AppLink>
        </p>
      ) : null}
      {reconnecting ? (
        <p className="sv-offline" role="status" data-testid="sv-offline">
          {t("reconnecting")}
        </p>
      ) : null}
    </section>
  );
}
