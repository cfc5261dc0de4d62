import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher } from "@remix-run/react";
import { useGuardedFetcher } from "../../lib/tap-guard";
import { useTranslation } from "react-i18next";
import { LANGUAGES, localeFromLang } from "../../../locales/languages";
import { AppLink, Screen } from "../../components/nav";
import { ThemeSwitch } from "../../components/shell/theme-switch";
import { useUi } from "../../components/ui";
import { api } from "../../lib/api.server";
import { clearTokenCookie, setLocaleCookie } from "../../lib/session.server";
import { themeChoiceOf, themeCookie } from "../../lib/theme";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useRootData } from "../../root";
import { MenuItem } from "./account";
export { clientAction } from "../../lib/client-action";

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const intent = form.get("intent");
  if (intent === "logout") {
    const res = await api(context, request, "/api/user/logout");
    if (res.code !== 1) return res;
    return redirect("/pages/user/login", { headers: { "set-cookie": await clearTokenCookie(request) } });
  }
  // Theme: only a cookie (the server renders it; the account does not need it).
  if (intent === "theme") {
    const cookie = themeCookie(themeChoiceOf(form.get("theme")), new URL(request.url).protocol === "https:");
    return new Response(JSON.stringify({ code: 1 }), { headers: { "content-type": "application/json", "set-cookie": cookie } });
  }
  // Language: stored on the account and in the `lng` cookie; the page then reloads.
  const locale = localeFromLang(String(form.get("lang") ?? ""));
  const res = await api(context, request, "/api/user/lang", { value: locale ?? "" });
  if (res.code !== 1 || !locale) return res;
  return new Response(JSON.stringify(res), {
    headers: { "content-type": "application/json", "set-cookie": await setLocaleCookie(request, locale) },
  });
}

export default function Settings() {
  const { t } = useTranslation("me");
  const { t: ts } = useTranslation("shell");
  const { t: tt } = useTranslation("trade");
  const { t: tn } = useTranslation("notifications");
  const root = useRootData();
  const ui = useUi();
  const langFetcher = useFetcher<PageEnvelope>({ key: "lang" });
  const logoutFetcher = useGuardedFetcher<PageEnvelope>({ key: "logout" });
  useEnvelope(langFetcher.data, () => window.location.reload());
  useEnvelope(logoutFetcher.data);
  const current = root?.locale ?? "en";
  return (
    <Screen title={t("settings_title")} back>
      <nav className="menu card" aria-label={t("security.title")}>
        <MenuItem to="/pages/me/sub/security" label={t("security.settings_row")} detail={t(root?.user?.two_factor ? "security.state_on" : "security.state_off")} testId="menu-security" />
      </nav>
      <section className="card">
        <h2 className="card-title">{t("language_title")}</h2>
        <div className="lang-list" role="radiogroup" aria-label={t("language_title")}>
          {LANGUAGES.map((l) => (
            <button
              key={l.key}
              type="button"
              role="radio"
              lang={l.key}
              aria-checked={l.key === current}
              className={l.key === current ? "lang-item lang-active" : "lang-item"}
              onClick={() => {
                if (l.key !== current) langFetcher.submit({ intent: "lang", lang: l.key }, { method: "post" });
              }}
            >
              <span>{l.name}</span>
              {l.key === current ? <span aria-hidden="true">✓</span> : null}
            </button>
          ))}
        </div>
      </section>
      <nav className="menu card" aria-label={tn("title")}>
        <AppLink to="/pages/me/sub/notifications" className="menu-item" data-testid="settings-notifications">
          <span>{tn("title")}</span>
          <span className="menu-detail" aria-hidden="true">
            ›
          </span>
        </AppLink>
      </nav>
      <section className="card">
        <h2 className="card-title">{ts("theme.title")}</h2>
        <ThemeSwitch current={root?.theme ?? "system"} />
      </section>
      <nav className="menu card" aria-label={t("limits.title")}>
        <MenuItem to="/pages/me/sub/limits" label={t("limits.title")} testId="settings-limits" />
      </nav>
      <nav className="menu card" aria-label={tt("liabilities.title")}>
        <MenuItem to="/pages/me/sub/liabilities" label={tt("liabilities.title")} testId="menu-liabilities" />
        <MenuItem to="/proof" label={tt("proof_page.title")} testId="menu-proof" />
      </nav>
      <nav className="menu card" aria-label={t("devices.title")}>
        <MenuItem to="/pages/me/sub/devices" label={t("devices.menu")} testId="menu-devices" />
      </nav>
      <section className="card">
        <h2 className="card-title">{t("account_section")}</h2>
        <p className="muted">{root?.user?.account}</p>
        <button
          type="button"
          className="btn btn-danger btn-block"
          onClick={async () => {
            if (await ui.confirm(t("logout_confirm"))) logoutFetcher.submit({ intent: "logout" }, { method: "post" });
          }}
        >
          {t("logout")}
        </button>
      </section>
    </Screen>
  );
}
