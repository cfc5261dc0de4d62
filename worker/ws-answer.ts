import { DEFAULT_LOCALE, localeFromAcceptLanguage } from "../locales/languages";
import { translate } from "./i18n";

/**
 * A refused WebSocket upgrade, answered like any API error: the `{code, msg, data}` envelope in
 * the language the browser asks for (a socket request carries no other language hint).
 */
export function socketRefusal(request: Request, status: number, key: string, headers: HeadersInit = {}): Response {
  const locale = localeFromAcceptLanguage(request.headers.get("accept-language")) ?? DEFAULT_LOCALE;
  return Response.json({ code: 0, msg: translate(locale, key), data: { error: key.replace(/^errors\./, "") } }, { status, headers });
}
