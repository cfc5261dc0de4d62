import { redirect, type AppLoadContext } from "@remix-run/cloudflare";
import { langCodeOf } from "../../locales/languages";
import { getLocale } from "./i18n.server";
import { loginUrl } from "./guard";
import { clearTokenCookie, readToken } from "./session.server";
import { readGuestToken } from "./service-cookie.server";

/**
 * Calls the API in-process as the signed-in user of this request (or the guest of the
 * customer-service chat, by the `pl_guest` cookie), in the page's language.
 * Loaders use `apiOrLogin` (an expired session goes to login and back); actions use `api`
 * and pass the envelope to the page, which shows the 401 modal when `status` is 401.
 */
export async function api<T = any>(context: AppLoadContext, request: Request, path: string, body?: Record<string, unknown> | FormData) {
  const [token, guest, locale] = await Promise.all([readToken(request), readGuestToken(request), getLocale(request)]);
  // The guest token rides along so login and register hand a guest's conversation over.
  const res = await context.api<T>(path, { body, token, guest_token: guest, lang: langCodeOf(locale) });
  return { status: res.status, ...res.body };
}

export async function apiOrLogin<T = any>(context: AppLoadContext, request: Request, path: string, body?: Record<string, unknown>) {
  const res = await api<T>(context, request, path, body);
  if (res.status === 401) {
    const url = new URL(request.url);
    throw redirect(loginUrl(url.pathname + url.search), { headers: { "set-cookie": await clearTokenCookie(request) } });
  }
  return res;
}

/** The shape actions return to pages: the envelope plus the HTTP status. */
export type ActionEnvelope<T = unknown> = { status: number; code: 0 | 1; msg: string; data: T };

/**
 * A GET of the API as the signed-in user that answers a file (the CSV exports): the API's own
 * Response, so its type and file name pass through; the token never reaches the browser.
 */
export async function apiDownload(context: AppLoadContext, request: Request, path: string): Promise<Response> {
  const [token, locale] = await Promise.all([readToken(request), getLocale(request)]);
  return context.apiFetch(path, { method: "GET", token, lang: langCodeOf(locale) });
}
