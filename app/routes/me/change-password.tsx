import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher, useNavigate } from "@remix-run/react";
import { useRef } from "react";
import { useTranslation } from "react-i18next";
import { CodeField } from "../../components/code-field";
import { Field, useFieldGuard } from "../../components/form";
import { useTwoFactorOn } from "../../lib/two-factor";
import { Screen } from "../../components/nav";
import { useUi } from "../../components/ui";
import { api } from "../../lib/api.server";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useRootData } from "../../root";
export { clientAction } from "../../lib/client-action";

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const field = (n: string) => String(form.get(n) ?? "");
  return api(context, request, "/api/user/reset_login_pwd", {
    old_password: field("old_password"),
    new_password: field("new_password"),
    new_password_confirm: field("new_password_confirm"),
    code: field("code"),
  });
}

export default function ModifyPassword() {
  const { t } = useTranslation("me");
  const { t: ta } = useTranslation("auth");
  const ui = useUi();
  const guardFields = useFieldGuard();
  const navigate = useNavigate();
  const fetcher = useFetcher<PageEnvelope>();
  const form = useRef<HTMLFormElement>(null);
  // A wallet account without a password sets its first one: no old password to ask for.
  const setting = useRootData()?.user?.has_password === false;
  const twoFactor = useTwoFactorOn();
  const required = [...(setting ? [] : ["old_password"]), "new_password", "new_password_confirm", ...(twoFactor ? ["code"] : [])];
  useEnvelope(fetcher.data, (_data, msg) => {
    ui.toast(msg);
    form.current?.reset();
    navigate(-1);
  });
  return (
    <Screen title={t(setting ? "pwd_set_title" : "pwd_title")} back>
      <fetcher.Form
        ref={form}
        method="post"
        className="card form"
        noValidate
        onSubmit={guardFields(required)}
      >
        {setting ? null : <Field label={t("old_password")} name="old_password" type="password" autoComplete="current-password" placeholder={t("old_password_placeholder")} />}
        <Field label={t("new_password")} name="new_password" type="password" autoComplete="new-password" placeholder={t("new_password_placeholder")} hint={ta("password_rule")} maxLength={64} />
        <Field label={t("confirm_new_password")} name="new_password_confirm" type="password" autoComplete="new-password" placeholder={t("confirm_new_password_placeholder")} maxLength={64} />
        {twoFactor ? <CodeField /> : null}
        <p className="muted">{t(setting ? "pwd_set_note" : "pwd_note")}</p>
        <button type="submit" className="btn btn-primary btn-block" disabled={fetcher.state !== "idle"}>
          {t(setting ? "pwd_set_submit" : "pwd_submit")}
        </button>
      </fetcher.Form>
    </Screen>
  );
}
