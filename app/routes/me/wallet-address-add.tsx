import type { ActionFunctionArgs, LinksFunction } from "@remix-run/cloudflare";
import { useFetcher, useLocation, useNavigate } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Field, missingFields } from "../../components/form";
import { ConfirmPasswordField } from "../../components/money/confirm-password";
import { Notice } from "../../components/money/notice";
import { Screen } from "../../components/nav";
import { useUi } from "../../components/ui";
import { api } from "../../lib/api.server";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import moneyStyles from "../../styles/money.css";
export { clientAction } from "../../lib/client-action";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  return api(context, request, "/api/user/add_wallet", { chain: "TRC20", address: String(form.get("address") ?? ""), password: String(form.get("password") ?? "") });
}

/** Bind a USDT withdrawal address. Only TRC20; the server checks the address's checksum. */
export default function AddWallet() {
  const { t } = useTranslation("wallet");
  const { t: tc } = useTranslation();
  const ui = useUi();
  const navigate = useNavigate();
  const location = useLocation();
  const fetcher = useFetcher<PageEnvelope>();
  useEnvelope(fetcher.data, (_data, msg) => {
    ui.toast(msg);
    // Back to where the user came from (the list, or the withdrawal form), else the list.
    if ((location.state as { back?: boolean } | null)?.back) navigate(-1);
    else navigate("/pages/me/sub/wallet", { replace: true });
  });
  return (
    <Screen title={t("add_wallet.title")} back>
      <fetcher.Form
        method="post"
        className="card form"
        noValidate
        onSubmit={(e) => {
          if (missingFields(e.currentTarget, ["address", "password"])) {
            e.preventDefault();
            ui.toast(tc("incomplete"));
          }
        }}
      >
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
        <ConfirmPasswordField />
        <button type="submit" className="btn btn-primary btn-block" disabled={fetcher.state !== "idle"} data-testid="add-wallet-submit">
          {t("add_wallet.submit")}
        </button>
      </fetcher.Form>
    </Screen>
  );
}
