import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { RESOURCES } from "../../../locales";
import { localeFromLang } from "../../../locales/languages";

/** One language's words for the browser (see entry.client.tsx). */
export async function loader({ params }: LoaderFunctionArgs) {
  const locale = localeFromLang(params.lng);
  if (!locale || locale !== params.lng) return new Response("Not found", { status: 404 });
  // Mail words are the Worker's alone (worker/mail/templates.ts): no page shows them.
  const { mail: _mail, ...words } = RESOURCES[locale];
  return new Response(JSON.stringify(words), {
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" },
  });
}
