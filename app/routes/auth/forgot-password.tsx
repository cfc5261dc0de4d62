import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher, useNavigate, useSearchParams } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Field, useFieldGuard } from "../../components/form";
import { AppLink, Screen } from "../../components/nav";
import { OneTimeCodeField } from "../../components/one-time-code-field";
import { useUi } from "../../components/ui";
import { api } from "../../lib/api.server";
import { useGuardedFetcher } from "../../lib/tap-guard";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
export { clientAction } from "../../lib/client-action";

type Sent = { retry_after: number; expires_in: number };

/** `intent=start` asks for a code; `intent=finish` sends it with the new password (decision 138). */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const field = (n: string) => String(form.get(n) ?? "");
  if (form.get("intent") === "start") return api<Sent>(context, request, "/api/user/forgot/start", { account: field("account") });
  return api(context, request, "/api/user/forgot/finish", {
    account: field("account"),
    code: field("code"),
    new_password: field("new_password"),
    new_password_confirm: field("new_password_confirm"),
  });
}

/**
 * Forgot password: the account name or verified email first, then the mailed code and a new
 * password. The first answer is the same whether or not the account exists, so the page always
 * goes on to the code step; the resend countdown runs on the server's `retry_after`.
 */
export default function ForgotPassword() {
  const { t } = useTranslation("auth");
  const ui = useUi();
  const guardFields = useFieldGuard();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const start = useGuardedFetcher<PageEnvelope<Sent & { error?: string }>>();
  const finish = useFetcher<PageEnvelope>();
  const [account, setAccount] = useState(params.get("account") ?? "");
  const [sent, setSent] = useState<{ retry_after: number; at: number } | null>(null);

  // A refused resend (429) still says how long to wait: the countdown follows the server.
  const onStart = (answer: PageEnvelope<Sent & { error?: string; retry_after?: number }> | undefined) => {
    if (!answer || answer.network) return;
    const retry_after = answer.data?.retry_after;
    if (typeof retry_after === "number") setSent({ retry_after, at: Date.now() });
  };
  useEnvelope(start.data, (_data, msg) => ui.toast(msg));
  useEffect(() => onStart(start.data), [start.data]);
  useEnvelope(finish.data, (_data, msg) => {
    ui.toast(msg);
    navigate("/pages/user/login", { replace: true });
  });

  const askCode = () => start.submit({ intent: "start", account }, { method: "post" });

  return (
    <Screen title={t("forgot_title")} back>
      <div className="auth">
        {sent === null ? (
          <start.Form
            method="post"
            className="card form"
            noValidate
            onSubmit={guardFields(["account"])}
            data-testid="forgot-start"
          >
            <p className="muted">{t("forgot_intro")}</p>
            <input type="hidden" name="intent" value="start" />
            <Field
              label={t("forgot_account")}
              name="account"
              autoComplete="username"
              autoCapitalize="none"
              placeholder={t("forgot_account_placeholder")}
              value={account}
              onChange={(e) => setAccount(e.target.value)}
              maxLength={254}
              data-testid="forgot-account"
            />
            <button type="submit" className="btn btn-primary btn-block" disabled={start.state !== "idle"} data-testid="forgot-send">
              {t("forgot_send")}
            </button>
          </start.Form>
        ) : (
          <finish.Form
            method="post"
            className="card form"
            noValidate
            onSubmit={guardFields(["code", "new_password", "new_password_confirm"])}
            data-testid="forgot-finish"
          >
            <p className="muted">{t("forgot_code_step")}</p>
            <input type="hidden" name="intent" value="finish" />
            <input type="hidden" name="account" value={account} />
            <OneTimeCodeField retryAfter={sent.retry_after} sentAt={sent.at} onResend={askCode} resending={start.state !== "idle"} autoFocus />
            <Field label={t("forgot_new_password")} name="new_password" type="password" autoComplete="new-password" hint={t("password_rule")} maxLength={64} data-testid="forgot-new-password" />
            <Field label={t("forgot_confirm_password")} name="new_password_confirm" type="password" autoComplete="new-password" maxLength={64} data-testid="forgot-confirm-password" />
            <button type="submit" className="btn btn-primary btn-block" disabled={finish.state !== "idle"} data-testid="forgot-submit">
              {t("forgot_submit")}
            </button>
            <button type="button" className="link" onClick={() => setSent(null)}>
              {t("forgot_other_account")}
            </button>
          </finish.Form>
        )}
        <p className="auth-switch muted">{t("forgot_no_email")}</p>
        <p className="auth-switch">
          <AppLink to="/pages/user/login">{t("back_to_login")}</AppLink>
        </p>
      </div>
    </Screen>
  );
}
