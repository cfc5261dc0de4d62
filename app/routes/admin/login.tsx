import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Field } from "../../components/form";
import { adminApi } from "../../lib/admin.server";
import { setTokenCookie } from "../../lib/session.server";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
export { clientAction } from "../../lib/client-action";

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const res = await adminApi<{ token: string }>(context, request, "/api/admin/login", {
    account: String(form.get("account") ?? ""),
    password: String(form.get("password") ?? ""),
  });
  if (res.code !== 1) return res;
  return redirect("/admin", { headers: { "set-cookie": await setTokenCookie(request, res.data.token, "operator") } });
}

export default function AdminLogin() {
  const { t } = useTranslation("admin");
  const fetcher = useFetcher<PageEnvelope>();
  useEnvelope(fetcher.data);
  return (
    <div className="admin-login">
      <fetcher.Form method="post" className="card form">
        <h1 className="card-title">{t("login_title")}</h1>
        <Field label={t("account")} name="account" autoComplete="username" required />
        <Field label={t("password")} name="password" type="password" autoComplete="current-password" required />
        <button type="submit" className="btn btn-primary btn-block" disabled={fetcher.state !== "idle"}>
          {t("login_submit")}
        </button>
      </fetcher.Form>
    </div>
  );
}
