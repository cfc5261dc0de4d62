import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher, useSearchParams } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Field, useFieldGuard } from "../../components/form";
import { AppLink, Screen } from "../../components/nav";
import { api } from "../../lib/api.server";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import type { UserInfo } from "../../lib/types";
import { signedIn } from "./login";
export { clientAction } from "../../lib/client-action";

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const field = (n: string) => String(form.get(n) ?? "");
  const res = await api<{ userinfo: UserInfo & { token: string } }>(context, request, "/api/user/register", {
    account: field("account"),
    password: field("password"),
    password_confirm: field("password_confirm"),
    invite_code: field("invite_code"),
  });
  if (res.code !== 1) return res;
  return signedIn(request, res.data.userinfo, "/");
}

export default function Register() {
  const { t } = useTranslation("auth");
  const guardFields = useFieldGuard();
  const fetcher = useFetcher<PageEnvelope>();
  const [params] = useSearchParams();
  useEnvelope(fetcher.data);
  return (
    <Screen title={t("register_title")}>
      <div className="auth">
        <fetcher.Form
          method="post"
          className="card form"
          noValidate
          onSubmit={guardFields(["account", "password", "password_confirm", "invite_code"])}
        >
          <Field label={t("account")} name="account" autoComplete="username" placeholder={t("account_placeholder")} hint={t("account_rule")} autoCapitalize="none" maxLength={20} />
          <Field label={t("password")} name="password" type="password" autoComplete="new-password" placeholder={t("password_placeholder")} hint={t("password_rule")} maxLength={64} />
          <Field label={t("confirm_password")} name="password_confirm" type="password" autoComplete="new-password" placeholder={t("confirm_placeholder")} maxLength={64} />
          <Field
            label={t("invite_code")}
            name="invite_code"
            placeholder={t("invite_placeholder")}
            defaultValue={params.get("code") ?? params.get("invite_code") ?? ""}
            autoCapitalize="characters"
            maxLength={16}
          />
          <button type="submit" className="btn btn-primary btn-block" disabled={fetcher.state !== "idle"}>
            {t("register_submit")}
          </button>
        </fetcher.Form>
        <p className="auth-switch">
          {t("have_account")} <AppLink to="/pages/user/login">{t("go_login")}</AppLink>
        </p>
      </div>
    </Screen>
  );
}
