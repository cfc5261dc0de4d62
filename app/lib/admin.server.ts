import { redirect, type AppLoadContext } from "@remix-run/cloudflare";
import { langCodeOf } from "../../locales/languages";
import { getLocale } from "./i18n.server";
import { clearTokenCookie, readToken } from "./session.server";

/**
 * The console's API calls carry the operator session from the `pl_operator` cookie
 * (path /, SameSite=Strict). An expired session goes back to the console login; a session
 * still enrolling its second factor goes to the enrolment page.
 */
export async function adminApi<T = any>(context: AppLoadContext, request: Request, path: string, body?: Record<string, unknown>) {
  const [token, locale] = await Promise.all([readToken(request, "operator"), getLocale(request)]);
  const res = await context.api<T>(path, { body, token, lang: langCodeOf(locale), method: "POST" });
  return { status: res.status, ...res.body };
}

export async function adminApiOrLogin<T = any>(context: AppLoadContext, request: Request, path: string, body?: Record<string, unknown>) {
  const res = await adminApi<T>(context, request, path, body);
  if (res.status === 401) {
    throw redirect("/admin/login", { headers: { "set-cookie": await clearTokenCookie(request, "operator") } });
  }
  // Signed in, but no authenticator key yet: enrolment comes before anything else (decision 117).
  if (res.status === 403 && (res.data as { error?: string } | null)?.error === "operator_enrolment_required") throw redirect("/admin/enrol");
  return res;
}
