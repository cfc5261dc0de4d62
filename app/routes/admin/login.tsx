import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { CodeField } from "../../components/code-field";
import { Field } from "../../components/form";
import { adminApi } from "../../lib/admin.server";
import { setTokenCookie } from "../../lib/session.server";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
export { clientAction } from "../../lib/client-action";

/**
 * Operator sign-in in two steps (decision 117): the password, then a code from the operator's
 * authenticator app. An operator without a key yet lands on the enrolment page.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const res = await adminApi<{ token: string; enrolled: boolean }>(context, request, "/api/admin/login", {
    account: String(form.get("account") ?? ""),
    password: String(form.get("password") ?? ""),
    // Sent on the second step only.
    ...(form.has("code") ? { code: String(form.get("code") ?? "") } : {}),
  });
  if (res.code !== 1) return res;
  return redirect(res.data.enrolled ? "/admin" : "/admin/enrol", { headers: { "set-cookie": await setTokenCookie(request, res.data.token, "operator") } });
}

export default function AdminLogin() {
  const { t } = useTranslation("admin");
  const fetcher = useFetcher<PageEnvelope<{ need_2fa?: boolean }>>();
  // Once the password was right the code step stays; a wrong code keeps the operator on it.
  const [needCode, setNeedCode] = useState(false);
  useEffect(() => {
    if (fetcher.data?.data?.need_2fa) setNeedCode(true);
  }, [fetcher.data]);
  useEnvelope(fetcher.data);
  return (
    <div className="admin-login">
      <fetcher.Form method="post" className="card form">
        <h1 className="card-title">{t(needCode ? "two_factor.login_title" : "login_title")}</h1>
        {/* Hidden, not removed, on the second step: the password goes again with the code. */}
        <div className="form" hidden={needCode}>
          <Field label={t("account")} name="account" autoComplete="username" required />
          <Field label={t("password")} name="password" type="password" autoComplete="current-password" required />
        </div>
        {needCode ? (
          <>
            <p className="muted" data-testid="operator-code-prompt">
              {t("two_factor.login_prompt")}
            </p>
            <CodeField allowRecovery={false} autoFocus />
          </>
        ) : null}
        <button type="submit" className="btn btn-primary btn-block" disabled={fetcher.state !== "idle"}>
          {t(needCode ? "two_factor.login_submit" : "login_submit")}
        </button>
        {needCode ? (
          <button type="button" className="link" onClick={() => setNeedCode(false)}>
            {t("two_factor.back")}
          </button>
        ) : null}
      </fetcher.Form>
    </div>
  );
}
