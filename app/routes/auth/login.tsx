import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher, useSearchParams } from "@remix-run/react";
import { useEffect, useState } from "react";
import { CodeField } from "../../components/code-field";
import { useTranslation } from "react-i18next";
import { localeFromLang } from "../../../locales/languages";
import { Field, useFieldGuard } from "../../components/form";
import { AppLink, Screen } from "../../components/nav";
import { PasskeySignIn } from "../../components/passkey-sign-in";
import { api } from "../../lib/api.server";
import { safeReturnPath } from "../../lib/guard";
import { readToken, setLocaleCookie, setTokenCookie } from "../../lib/session.server";
import { clearGuestCookie, readGuestToken } from "../../lib/service-cookie.server";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import type { UserInfo } from "../../lib/types";
export { clientAction } from "../../lib/client-action";

/** Already signed in: go straight to where the user was heading. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const token = await readToken(request);
  if (token) {
    const res = await context.api("/api/user/user", { token });
    if (res.body.code === 1) throw redirect(safeReturnPath(new URL(request.url).searchParams.get("path")));
  }
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const res = await api<{ userinfo: UserInfo & { token: string } }>(context, request, "/api/user/login", {
    account: String(form.get("account") ?? ""),
    password: String(form.get("password") ?? ""),
    // Sent only on the second step; with two-factor off the API ignores it.
    ...(form.has("code") ? { code: String(form.get("code") ?? "") } : {}),
  });
  if (res.code !== 1) return res;
  return signedIn(request, res.data.userinfo, String(form.get("path") ?? ""));
}

/** Sets the session cookie (and the account's saved language), drops a guest chat cookie, and returns to `path`. */
export async function signedIn(request: Request, info: UserInfo & { token: string }, path: string) {
  const headers = new Headers();
  headers.append("set-cookie", await setTokenCookie(request, info.token));
  const saved = localeFromLang(info.lang);
  if (saved) headers.append("set-cookie", await setLocaleCookie(request, saved));
  // The API handed the guest's chat to the account; the guest token reads nothing any more.
  if (await readGuestToken(request)) headers.append("set-cookie", await clearGuestCookie(request));
  return redirect(safeReturnPath(path), { headers });
}

export default function Login() {
  const { t } = useTranslation("auth");
  const guardFields = useFieldGuard();
  const fetcher = useFetcher<PageEnvelope>();
  const [params] = useSearchParams();
  // The second step stays once the password was right; a wrong code keeps the user on it.
  const [needCode, setNeedCode] = useState(false);
  const answer = fetcher.data as PageEnvelope<{ need_2fa?: boolean }> | undefined;
  useEffect(() => {
    if (answer?.data?.need_2fa) setNeedCode(true);
  }, [answer]);
  useEnvelope(fetcher.data);
  const required = needCode ? ["account", "password", "code"] : ["account", "password"];
  return (
    <Screen title={t(needCode ? "two_factor_title" : "login_title")}>
      <div className="auth">
        <div className="auth-brand">
          <img src="/favicon.svg" alt="" width="56" height="56" />
          <p className="auth-tagline">{t("login_tagline")}</p>
        </div>
        <fetcher.Form
          method="post"
          className="card form"
          noValidate
          onSubmit={guardFields(required)}
        >
          <input type="hidden" name="path" value={params.get("path") ?? ""} />
          {/* Hidden, not removed, on the second step: the password goes again with the code. */}
          <div className={needCode ? undefined : "form"} hidden={needCode}>
            <Field label={t("account")} name="account" autoComplete="username" placeholder={t("account_placeholder")} autoCapitalize="none" />
            <Field label={t("password")} name="password" type="password" autoComplete="current-password" placeholder={t("password_placeholder")} />
          </div>
          {needCode ? (
            <>
              <p className="muted" data-testid="two-factor-prompt">
                {t("two_factor_prompt")}
              </p>
              <CodeField autoFocus />
            </>
          ) : null}
          <button type="submit" className="btn btn-primary btn-block" disabled={fetcher.state !== "idle"}>
            {t(needCode ? "two_factor_submit" : "login_submit")}
          </button>
          {needCode ? (
            <button type="button" className="link" onClick={() => setNeedCode(false)}>
              {t("two_factor_back")}
            </button>
          ) : null}
        </fetcher.Form>
        <p className="auth-switch">
          <AppLink to="/pages/user/forgot" data-testid="forgot-link">
            {t("forgot_link")}
          </AppLink>
        </p>
        <PasskeySignIn path={params.get("path") ?? ""} />
        <p className="auth-switch">
          <AppLink to={`/pages/user/login2${params.get("path") ? `?path=${encodeURIComponent(params.get("path")!)}` : ""}`}>{t("go_wallet_login")}</AppLink>
        </p>
        <p className="auth-switch">
          {t("no_account")} <AppLink to={`/pages/user/register${params.get("code") ? `?code=${encodeURIComponent(params.get("code")!)}` : ""}`}>{t("go_register")}</AppLink>
        </p>
      </div>
    </Screen>
  );
}
