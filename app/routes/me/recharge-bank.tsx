import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { AmountInput } from "../../components/money/amount-input";
import { CopyValue } from "../../components/money/copy-value";
import { Notice } from "../../components/money/notice";
import { RechargeRecordsLink, RechargeReportForm } from "../../components/money/recharge-form";
import { rechargeAction } from "../../lib/recharge-action.server";
import { AppLink, Screen } from "../../components/nav";
import { apiOrLogin } from "../../lib/api.server";
import { formatUsdt } from "../../../worker/domain/money/units";
import { newRequestKey, type PlatformBank } from "../../lib/money";
import { useRootData } from "../../root";
import moneyStyles from "../../styles/money.css";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const res = await apiOrLogin<PlatformBank>(context, request, "/api/index/recharge_way1");
  const bank: PlatformBank = res.code === 1 ? res.data : { enabled: false };
  return { bank, request_key: newRequestKey() };
}

export const action = ({ request, context }: ActionFunctionArgs) => rechargeAction(context, request, "bank", []);

/** Bank transfer recharge: transfer to the platform's account, then report it with the receipt. */
export default function BankRecharge() {
  const { t } = useTranslation("wallet");
  const { bank, request_key } = useLoaderData<typeof loader>();
  const locale = useRootData()?.locale ?? "en";
  const [amount, setAmount] = useState("");
  const [image, setImage] = useState("");
  const records = <RechargeRecordsLink />;

  if (!bank.enabled) {
    return (
      <Screen title={t("stored2.title")} back right={records}>
        <Notice tone="warn" title={t("stored2.disabled_title")} testId="bank-disabled">
          <p>{t("stored2.disabled_body")}</p>
        </Notice>
        <AppLink to="/pages/me/sub/stored" className="btn btn-primary btn-block">
          {t("stored2.use_crypto")}
        </AppLink>
      </Screen>
    );
  }

  return (
    <Screen title={t("stored2.title")} back right={records}>
      <section className="card" aria-labelledby="bank-title" data-testid="platform-bank">
        <h2 className="card-title" id="bank-title">
          {t("stored2.account_title")}
        </h2>
        <dl className="rows">
          <div className="row">
            <dt>{t("stored2.bank")}</dt>
            <dd>{bank.bank}</dd>
          </div>
          <div className="row">
            <dt>{t("stored2.holder")}</dt>
            <dd>{bank.holder}</dd>
          </div>
          <div className="row">
            <dt>{t("stored2.account")}</dt>
            <dd>
              <CopyValue value={bank.account} testId="bank-account" label={t("stored2.account")} />
            </dd>
          </div>
          {bank.branch ? (
            <div className="row">
              <dt>{t("stored2.branch")}</dt>
              <dd>{bank.branch}</dd>
            </div>
          ) : null}
          <div className="row">
            <dt>{t("stored2.min_deposit")}</dt>
            <dd data-testid="min-deposit">
              {formatUsdt(bank.min_amount_micro, locale)} {t("unit")}
            </dd>
          </div>
        </dl>
      </section>

      <RechargeReportForm
        title={t("stored2.report_title")}
        request_key={request_key}
        required={["amount"]}
        image={image}
        onImage={setImage}
        screenshotLabel={t("stored2.screenshot")}
        warning={t("stored2.warning")}
        submitLabel={t("stored2.submit")}
        onDone={() => {
          setAmount("");
          setImage("");
        }}
      >
        <AmountInput
          label={t("stored2.amount_label")}
          value={amount}
          onChange={setAmount}
          placeholder={t("stored.amount_placeholder", { min: formatUsdt(bank.min_amount_micro, locale) })}
          testId="recharge-amount"
        />
      </RechargeReportForm>

      <AppLink to="/pages/me/sub/stored" className="m-alt-link">
        {t("stored2.use_crypto")} ›
      </AppLink>
    </Screen>
  );
}
