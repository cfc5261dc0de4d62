import type { AppLoadContext } from "@remix-run/cloudflare";
import { langCodeOf } from "../../locales/languages";
import { getLocale } from "./i18n.server";
import { readToken } from "./session.server";
import { readGuestToken, setGuestCookie } from "./service-cookie.server";
import type { ActionEnvelope } from "./api.server";
import type { Conversation, ServiceMessage } from "./service";

/**
 * The visitor's side of the chat, called in-process: as the signed-in user, else as the guest
 * of the `pl_guest` cookie, or of a token the API issued during this very request (the
 * browser has not stored that cookie yet).
 */
export async function visitorApi<T = any>(context: AppLoadContext, request: Request, path: string, body?: Record<string, unknown> | FormData, guest?: string | null): Promise<ActionEnvelope<T>> {
  const [token, stored, locale] = await Promise.all([readToken(request), readGuestToken(request), getLocale(request)]);
  const res = await context.api<T>(path, { body, token, guest_token: guest ?? stored, lang: langCodeOf(locale) });
  return { status: res.status, ...res.body };
}

type Opened = { conversation: Conversation; guest_token?: string };

/**
 * The conversation an action writes to: the one the page already has, or, on a first message,
 * a new one (a guest also gets their cookie, returned here as a Set-Cookie value).
 */
export async function ensureConversation(context: AppLoadContext, request: Request, given: string, body?: Record<string, unknown>) {
  if (/^\d{1,12}$/.test(given)) return { ok: true as const, conversation_id: Number(given), guest: null, cookie: null, conversation: null };
  const opened = await visitorApi<Opened>(context, request, "/api/service/open", body);
  if (opened.code !== 1) return { ok: false as const, answer: opened };
  const guest = opened.data.guest_token ?? null;
  return { ok: true as const, conversation_id: opened.data.conversation.id, guest, cookie: guest ? await setGuestCookie(request, guest) : null, conversation: opened.data.conversation };
}

/** `?before_id=` / `?after_id=` on a chat page's URL: a page of history for useServiceChat. */
export function historyQuery(url: URL): Record<string, number> | null {
  const id = (name: string) => {
    const v = url.searchParams.get(name);
    return v !== null && /^\d{1,12}$/.test(v) ? Number(v) : null;
  };
  const conversation_id = id("conversation_id") ?? id("id");
  const before_id = id("before_id");
  const after_id = id("after_id");
  if (conversation_id === null || (before_id === null && after_id === null)) return null;
  return before_id !== null ? { conversation_id, before_id } : { conversation_id, after_id: after_id! };
}

export type MessagesPage = { messages: ServiceMessage[]; has_more: boolean; conversation: Conversation };

/** The answer a history load gets: the page, or the API's message when it was refused. */
export function historyAnswer(res: ActionEnvelope<MessagesPage>) {
  return res.code === 1 ? { page: { messages: res.data.messages, has_more: res.data.has_more } } : { page: null, error: res.msg };
}
