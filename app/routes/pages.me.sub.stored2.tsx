import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher, useLoaderData, useNavigate } from "@remix-run/react";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { missingFields } from "../components/form";
import { AmountInput } from "../components/money/amount-input";
import { CopyValue } from "../components/money/copy-value";
import { ImageUpload } from "../components/money/image-upload";
import { Notice } from "../components/money/notice";
import { forwardUpload } from "../components/money/upload.server";
import { AppLink, Screen } from "../components/nav";
import { useUi } from "../components/ui";
import { api, apiOrLogin } from "../lib/api.server";
import { formatUsdt } from "../lib/format";
import { newRequestKey, type PlatformBank } from "../lib/money";
import { useEnvelope, type PageEnvelope } from "../lib/use-envelope";
import { useRootData } from "../root";
import moneyStyles from "../styles/money.css";
export { clientAction } from "../lib/client-action";
export { shouldRevalidate } from "../lib/revalidate";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const res = await apiOrLogin<PlatformBank>(context, request, "/api/index/recharge_way1");
  const bank: PlatformBank = res.code === 1 ? res.data : { enabled: false };
  return { bank, request_key: newRequestKey() };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  if (form.get("intent") === "upload") return forwardUpload(context, request, form);
  const field = (n: string) => String(form.get(n) ?? "");
  return api(context, request, "/api/user/recharge", {
    kind: "bank",
    amount: field("amount"),
    image: field("image"),
    request_key: field("request_key"),
  });
}

/** Bank transfer recharge: transfer to the platform's account, then report it with the receipt. */
export default function BankRecharge() {
  const { t } = useTranslation("wallet");
  const { t: tc } = useTranslation();
  const { bank, request_key } = useLoaderData<typeof loader>();
  const locale = useRootData()?.locale ?? "en";
  const ui = useUi();
  const navigate = useNavigate();
  const fetcher = useFetcher<PageEnvelope>();
  const [amount, setAmount] = useState("");
  const [image, setImage] = useState("");
  const busy = fetcher.state !== "idle";

  useEnvelope(fetcher.data, (_data, msg) => {
    ui.toast(msg);
    setAmount("");
    setImage("");
    navigate("/pages/me/sub/recharge-record");
  });

  const records = (
    <AppLink to="/pages/me/sub/recharge-record" className="m-navbar-action">
      {t("records")}
    </AppLink>
  );

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

      <fetcher.Form
        method="post"
        className="card form"
        noValidate
        onSubmit={(e) => {
          if (missingFields(e.currentTarget, ["amount", "image"])) {
            e.preventDefault();
            ui.toast(tc("incomplete"));
          }
        }}
      >
        <h2 className="card-title">{t("stored2.report_title")}</h2>
        <input type="hidden" name="intent" value="recharge" />
        <input type="hidden" name="request_key" value={request_key} />
        <AmountInput
          label={t("stored2.amount_label")}
          value={amount}
          onChange={setAmount}
          placeholder={t("stored.amount_placeholder", { min: formatUsdt(bank.min_amount_micro, locale) })}
          testId="recharge-amount"
        />
        <ImageUpload label={t("stored2.screenshot")} hint={t("upload.hint")} value={image} onChange={setImage} />
        <Notice tone="warn" title={t("stored.warning_title")} testId="recharge-warning">
          <p>{t("stored2.warning")}</p>
        </Notice>
        <p className="muted">{t("stored.review_note")}</p>
        <button type="submit" className="btn btn-primary btn-block" disabled={busy} data-testid="recharge-submit">
          {t("stored2.submit")}
        </button>
      </fetcher.Form>

      <AppLink to="/pages/me/sub/stored" className="m-alt-link">
        {t("stored2.use_crypto")} ›
      </AppLink>
    </Screen>
  );
}
