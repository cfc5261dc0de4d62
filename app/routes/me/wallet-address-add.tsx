import type { ActionFunctionArgs, LinksFunction } from "@remix-run/cloudflare";
import { useTranslation } from "react-i18next";
import { Field } from "../../components/form";
import { BindingForm } from "../../components/money/binding-form";
import { Notice } from "../../components/money/notice";
import { api } from "../../lib/api.server";
import moneyStyles from "../../styles/money.css";
export { clientAction } from "../../lib/client-action";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  return api(context, request, "/api/user/add_wallet", { chain: "TRC20", address: String(form.get("address") ?? ""), password: String(form.get("password") ?? ""), code: String(form.get("code") ?? "") });
}

/** Bind a USDT withdrawal address. Only TRC20; the server checks the address's checksum. */
export default function AddWallet() {
  const { t } = useTranslation("wallet");
  return (
    <BindingForm title={t("add_wallet.title")} listPath="/pages/me/sub/wallet" required={["address"]} submit={t("add_wallet.submit")} submitTestId="add-wallet-submit">
      <div className="field">
        <span className="field-label">{t("add_wallet.currency_chain")}</span>
        <p className="m-chain-line m-chain-fixed" data-testid="wallet-chain">
          <span className="m-tag">USDT</span>
          <span className="m-tag m-tag-blue">TRC20</span>
          <span className="muted">{t("add_wallet.only_trc20")}</span>
        </p>
      </div>
      <Field
        label={t("add_wallet.address")}
        name="address"
        placeholder={t("add_wallet.address_placeholder")}
        hint={t("add_wallet.address_hint")}
        autoComplete="off"
        autoCapitalize="off"
        autoCorrect="off"
        spellCheck={false}
        maxLength={64}
        className="field-input m-mono-input"
      />
      <Notice tone="warn">
        <p>{t("add_wallet.warning")}</p>
      </Notice>
    </BindingForm>
  );
}
