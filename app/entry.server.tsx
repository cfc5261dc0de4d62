import type { AppLoadContext, EntryContext } from "@remix-run/cloudflare";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import { createInstance } from "i18next";
import { isbot } from "isbot";
import { renderToReadableStream } from "react-dom/server";
import { I18nextProvider, initReactI18next } from "react-i18next";
import { NAMESPACES, RESOURCES } from "../locales";
import { getLocale } from "./lib/i18n.server";
import { NonceProvider } from "./lib/nonce";
import { pageSecurityHeaders } from "../worker/page-security";
import { logError } from "../worker/observability/log";

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const lng = await getLocale(request);
  const i18n = createInstance();
  await i18n.use(initReactI18next).init({
    lng,
    resources: { [lng]: RESOURCES[lng] },
    ns: [...NAMESPACES],
    defaultNS: "common",
    fallbackLng: false,
    interpolation: { escapeValue: false },
  });

  const body = await renderToReadableStream(
    <NonceProvider value={loadContext.cspNonce}>
      <I18nextProvider i18n={i18n}>
        <RemixServer context={remixContext} url={request.url} nonce={loadContext.cspNonce} />
      </I18nextProvider>
    </NonceProvider>,
    {
      nonce: loadContext.cspNonce,
      signal: request.signal,
      onError(error: unknown) {
        if (!request.signal.aborted) logError("page.render_failed", { err: error });
        responseStatusCode = 500;
      },
    },
  );
  if (isbot(request.headers.get("user-agent") || "")) await body.allReady;

  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  pageSecurityHeaders(responseHeaders, loadContext.cspNonce, new URL(request.url));
  return new Response(body, { headers: responseHeaders, status: responseStatusCode });
}

/** Logs real server errors; an unknown URL (404) is not one. */
export function handleError(error: unknown, { request }: { request: Request }) {
  if (request.signal.aborted) return;
  if (isRouteErrorResponse(error) && error.status === 404) return;
  logError("page.error", { err: error });
}
