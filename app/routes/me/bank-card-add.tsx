import type { ActionFunctionArgs, LinksFunction } from "@remix-run/cloudflare";
import { useTranslation } from "react-i18next";
import { Field } from "../../components/form";
import { BindingForm } from "../../components/money/binding-form";
import { api } from "../../lib/api.server";
import moneyStyles from "../../styles/money.css";
export { clientAction } from "../../lib/client-action";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const field = (n: string) => String(form.get(n) ?? "");
  return api(context, request, "/api/user/add_bank", { name: field("name"), bank: field("bank"), card_number: field("card_number"), password: field("password"), code: field("code") });
}

/** Bind a bank card for withdrawals: cardholder, bank and card number (checked by the server). */
export default function AddBankCard() {
  const { t } = useTranslation("wallet");
  return (
    <BindingForm title={t("add_kabaw.title")} listPath="/pages/me/sub/kabaw" required={["name", "bank", "card_number"]} submit={t("add_kabaw.submit")} submitTestId="add-bank-submit">
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
      <p className="muted">{t("add_kabaw.note")}</p>
    </BindingForm>
  );
}
