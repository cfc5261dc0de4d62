import { redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher } from "@remix-run/react";
import { QRCodeSVG } from "qrcode.react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { CodeField } from "../../components/code-field";
import { useFieldGuard } from "../../components/form";
import { CopyValue } from "../../components/money/copy-value";
import { adminApi } from "../../lib/admin.server";
import { clearTokenCookie } from "../../lib/session.server";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import moneyStyles from "../../styles/money.css";
export { clientAction } from "../../lib/client-action";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

type Setup = { secret: string; otpauth_url: string };

/**
 * The first sign-in of an operator without an authenticator key (decision 117): nothing else
 * of the console opens before a key is set up and one code from it is right. Signed out: the
 * login; already enrolled: the console.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const me = await adminApi(context, request, "/api/admin/me");
  if (me.status === 401) throw redirect("/admin/login", { headers: { "set-cookie": await clearTokenCookie(request, "operator") } });
  if (me.code === 1) throw redirect("/admin");
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  if (intent === "logout") {
    await adminApi(context, request, "/api/admin/logout");
    return redirect("/admin/login", { headers: { "set-cookie": await clearTokenCookie(request, "operator") } });
  }
  if (intent === "enable") {
    const res = await adminApi(context, request, "/api/admin/2fa/enable", { code: String(form.get("code") ?? "") });
    return res.code === 1 ? redirect("/admin") : res;
  }
  return adminApi<Setup>(context, request, "/api/admin/2fa/setup");
}

export default function AdminEnrol() {
  const { t } = useTranslation("admin");
  const guardFields = useFieldGuard();
  const setup = useFetcher<PageEnvelope<Setup>>({ key: "operator-2fa-setup" });
  const enable = useFetcher<PageEnvelope>({ key: "operator-2fa-enable" });
  const [pending, setPending] = useState<Setup | null>(null);
  useEnvelope(setup.data, (data) => setPending(data));
  useEnvelope(enable.data);
  return (
    <div className="admin-login">
      <section className="card form" data-testid="operator-enrol">
        <h1 className="card-title">{t("two_factor.enrol_title")}</h1>
        <p className="muted">{t("two_factor.enrol_note")}</p>
        {pending ? (
          <enable.Form
            method="post"
            className="form"
            noValidate
            onSubmit={guardFields(["code"])}
          >
            <input type="hidden" name="intent" value="enable" />
            <p>{t("two_factor.step_scan")}</p>
            <div className="m-qr" role="img" aria-label={t("two_factor.qr_alt")} data-testid="operator-qr">
              <QRCodeSVG value={pending.otpauth_url} size={168} marginSize={2} level="M" aria-hidden="true" />
            </div>
            <p className="muted">{t("two_factor.step_key")}</p>
            <div className="m-address-box">
              <CopyValue value={pending.secret} testId="operator-key" label={t("two_factor.copy_key")} />
            </div>
            <p>{t("two_factor.step_code")}</p>
            <CodeField allowRecovery={false} />
            <button type="submit" className="btn btn-primary btn-block" disabled={enable.state !== "idle"} data-testid="operator-enrol-confirm">
              {t("two_factor.enrol_confirm")}
            </button>
          </enable.Form>
        ) : (
          <setup.Form method="post">
            <input type="hidden" name="intent" value="setup" />
            <button type="submit" className="btn btn-primary btn-block" disabled={setup.state !== "idle"} data-testid="operator-enrol-start">
              {t("two_factor.enrol_start")}
            </button>
          </setup.Form>
        )}
        <setup.Form method="post">
          <input type="hidden" name="intent" value="logout" />
          <button type="submit" className="btn btn-plain btn-block">
            {t("logout")}
          </button>
        </setup.Form>
      </section>
    </div>
  );
}
