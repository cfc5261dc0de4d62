import type { ActionFunctionArgs, LinksFunction } from "@remix-run/cloudflare";
import { useFetcher, useLocation, useNavigate } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Field, missingFields } from "../../components/form";
import { ConfirmPasswordField } from "../../components/money/confirm-password";
import { Screen } from "../../components/nav";
import { useUi } from "../../components/ui";
import { api } from "../../lib/api.server";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import moneyStyles from "../../styles/money.css";
export { clientAction } from "../../lib/client-action";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const field = (n: string) => String(form.get(n) ?? "");
  return api(context, request, "/api/user/add_bank", { name: field("name"), bank: field("bank"), card_number: field("card_number"), password: field("password") });
}

/** Bind a bank card for withdrawals: cardholder, bank and card number (checked by the server). */
export default function AddBankCard() {
  const { t } = useTranslation("wallet");
  const { t: tc } = useTranslation();
  const ui = useUi();
  const navigate = useNavigate();
  const location = useLocation();
  const fetcher = useFetcher<PageEnvelope>();
  useEnvelope(fetcher.data, (_data, msg) => {
    ui.toast(msg);
    if ((location.state as { back?: boolean } | null)?.back) navigate(-1);
    else navigate("/pages/me/sub/kabaw", { replace: true });
  });
  return (
    <Screen title={t("add_kabaw.title")} back>
      <fetcher.Form
        method="post"
        className="card form"
        noValidate
        onSubmit={(e) => {
          if (missingFields(e.currentTarget, ["name", "bank", "card_number", "password"])) {
            e.preventDefault();
            ui.toast(tc("incomplete"));
          }
        }}
      >
        <Field label={t("add_kabaw.name")} name="name" placeholder={t("add_kabaw.name_placeholder")} hint={t("add_kabaw.name_hint")} autoComplete="cc-name" maxLength={64} />
        <Field label={t("add_kabaw.bank")} name="bank" placeholder={t("add_kabaw.bank_placeholder")} autoComplete="off" maxLength={64} />
        <Field
          label={t("add_kabaw.card_number")}
          name="card_number"
          placeholder={t("add_kabaw.card_number_placeholder")}
          hint={t("add_kabaw.card_number_hint")}
          inputMode="numeric"
          autoComplete="cc-number"
          maxLength={30}
          className="field-input m-mono-input"
        />
        <ConfirmPasswordField />
        <p className="muted">{t("add_kabaw.note")}</p>
        <button type="submit" className="btn btn-primary btn-block" disabled={fetcher.state !== "idle"} data-testid="add-bank-submit">
          {t("add_kabaw.submit")}
        </button>
      </fetcher.Form>
    </Screen>
  );
}
