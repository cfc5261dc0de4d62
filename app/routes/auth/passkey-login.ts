import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { api } from "../../lib/api.server";
import type { UserInfo } from "../../lib/types";
import { signedIn } from "./login";

/**
 * Resource route behind the login page's "Sign in with a passkey": `intent=options` asks the
 * API for a challenge (in-process, so the relying party is this page's host), `intent=verify`
 * posts the authenticator's answer and sets the session cookie as password login does.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  if (form.get("intent") === "options") return api(context, request, "/api/user/passkey_login/options");
  const res = await api<{ userinfo: UserInfo & { token: string } }>(context, request, "/api/user/passkey_login/verify", {
    response: String(form.get("response") ?? ""),
  });
  if (res.code !== 1) return res;
  return signedIn(request, res.data.userinfo, String(form.get("path") ?? ""));
}
