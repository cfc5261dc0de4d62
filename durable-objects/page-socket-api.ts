/**
 * What the Worker and the objects agree on about a page's socket upgrade, apart from the objects
 * that serve it (page-sockets.ts): the session the Worker names on an upgrade, which sessions
 * ended, and how either of them refuses an upgrade. The Worker imports this file, never the
 * objects' socket code.
 */
import { DEFAULT_LOCALE, localeFromAcceptLanguage } from "../locales/languages";
import { translate } from "../worker/i18n";

/**
 * The session a page's socket was opened under (its token's hash), in a header only the Worker
 * sets (it replaces the client's), so the socket can be closed when that session ends
 * (decision 119).
 */
export const SESSION_HEADER = "x-page-session";

/** Names the session an upgrade opens under (or none), replacing whatever the client sent. */
export function setSessionHeader(headers: Headers, token_hash: string | null): void {
  headers.delete(SESSION_HEADER);
  if (token_hash) headers.set(SESSION_HEADER, token_hash);
}

/** The upgrade as the object gets it, naming the session it opens under. */
export function withSession(request: Request, token_hash: string | null): Request {
  const headers = new Headers(request.headers);
  setSessionHeader(headers, token_hash);
  return new Request(request, { headers });
}

/** Which of a user's sessions ended: one, all but the one that asked, or all of them. */
export type EndedSessions = { token_hash: string } | { all_but: string } | { all: true };

/**
 * A refused WebSocket upgrade, answered like any API error: the `{code, msg, data}` envelope in
 * the language the browser asks for (a socket request carries no other language hint).
 */
export function socketRefusal(request: Request, status: number, key: string, headers: HeadersInit = {}): Response {
  const locale = localeFromAcceptLanguage(request.headers.get("accept-language")) ?? DEFAULT_LOCALE;
  return Response.json({ code: 0, msg: translate(locale, key), data: { error: key.replace(/^errors\./, "") } }, { status, headers });
}
