import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { QRCodeSVG } from "qrcode.react";
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
import { newRequestKey, type DepositChannel } from "../../lib/money";
import { useRootData } from "../../root";
import moneyStyles from "../../styles/money.css";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const res = await apiOrLogin<DepositChannel[]>(context, request, "/api/index/recharge_way");
  return {
    channels: res.code === 1 ? res.data : [],
    error: res.code === 1 ? "" : res.msg,
    // One key per shown form: a double submit or a retry is the same request to the API.
    request_key: newRequestKey(),
  };
}

export const action = ({ request, context }: ActionFunctionArgs) => rechargeAction(context, request, "crypto", ["channel_id", "tx_hash"]);

/** Crypto recharge: pick currency and chain, send to the shown address, then report it with proof. */
export default function CryptoRecharge() {
  const { t } = useTranslation("wallet");
  const { channels, error, request_key } = useLoaderData<typeof loader>();
  const locale = useRootData()?.locale ?? "en";
  const [channelId, setChannelId] = useState<number | null>(channels[0]?.id ?? null);
  const [amount, setAmount] = useState("");
  const [txHash, setTxHash] = useState("");
  const [image, setImage] = useState("");
  const channel = channels.find((c) => c.id === channelId) ?? channels[0];
  const records = <RechargeRecordsLink />;

  if (!channel) {
    return (
      <Screen title={t("stored.title")} back right={records}>
        <Notice tone="warn" title={t("stored.no_channels")}>
          {error ? <p>{error}</p> : null}
        </Notice>
        <AppLink to="/pages/me/sub/stored2" className="btn btn-primary btn-block">
          {t("stored.use_bank")}
        </AppLink>
      </Screen>
    );
  }

  return (
    <Screen title={t("stored.title")} back right={records}>
      <section className="card" aria-labelledby="chain-title">
        <h2 className="card-title" id="chain-title">
          {t("stored.currency_chain")}
        </h2>
        <div className="m-chips" role="radiogroup" aria-labelledby="chain-title">
          {channels.map((c) => {
            const selected = c.id === channel.id;
            return (
              <button
                key={c.id}
                type="button"
                role="radio"
                aria-checked={selected}
                className={selected ? "m-chip m-chip-on" : "m-chip"}
                data-testid="channel-option"
                onClick={() => setChannelId(c.id)}
              >
                <strong>{c.currency}</strong>
                <span>{c.chain}</span>
              </button>
            );
          })}
        </div>
      </section>

      <section className="card m-deposit" aria-labelledby="address-title">
        <h2 className="card-title" id="address-title">
          {t("stored.address")}
        </h2>
        {channel.address ? (
          <OwnAddress address={channel.address} currency={channel.currency} chain={channel.chain} />
        ) : (
          <Notice tone="warn" title={t("stored.address_unavailable")} testId="address-unavailable">
            {channel.address_hint ? <p>{channel.address_hint}</p> : null}
          </Notice>
        )}
        <dl className="rows">
          <div className="row">
            <dt>{t("stored.min_deposit")}</dt>
            <dd data-testid="min-deposit">
              {formatUsdt(channel.min_amount_micro, locale)} {t("unit")}
            </dd>
          </div>
        </dl>
      </section>

      <RechargeReportForm
        title={t("stored.report_title")}
        request_key={request_key}
        required={["channel_id", "amount", "tx_hash"]}
        image={image}
        onImage={setImage}
        screenshotLabel={t("stored.screenshot")}
        warning={t("stored.warning")}
        submitLabel={t("stored.submit")}
        onDone={() => {
          setAmount("");
          setTxHash("");
          setImage("");
        }}
      >
        <input type="hidden" name="channel_id" value={channel.id} />
        <AmountInput
          label={t("stored.amount_label")}
          value={amount}
          onChange={setAmount}
          placeholder={t("stored.amount_placeholder", { min: formatUsdt(channel.min_amount_micro, locale) })}
          testId="recharge-amount"
        />
        <div className="field">
          <label htmlFor="tx_hash" className="field-label">
            {t("stored.tx_hash")}
          </label>
          <div className="field-row">
            <input
              id="tx_hash"
              name="tx_hash"
              className="field-input m-mono-input"
              value={txHash}
              onChange={(e) => setTxHash(e.target.value)}
              placeholder={t("stored.tx_hash_placeholder")}
              autoComplete="off"
              autoCapitalize="off"
              spellCheck={false}
              maxLength={200}
            />
          </div>
          <p className="field-hint">{t("stored.tx_hash_hint")}</p>
        </div>
      </RechargeReportForm>

      <AppLink to="/pages/me/sub/stored2" className="m-alt-link">
        {t("stored.use_bank")} ›
      </AppLink>
    </Screen>
  );
}

/** The user's own address on the chosen channel: QR, the address with Copy, and whose it is. */
function OwnAddress({ address, currency, chain }: { address: string; currency: string; chain: string }) {
  const { t } = useTranslation("wallet");
  return (
    <>
      <div className="m-qr" role="img" aria-label={t("stored.qr_label")}>
        <QRCodeSVG value={address} size={168} marginSize={2} level="M" aria-hidden="true" />
      </div>
      <p className="m-chain-line">
        <span className="m-tag">{currency}</span>
        <span className="m-tag m-tag-blue">{chain}</span>
      </p>
      <div className="m-address-box">
        <CopyValue value={address} testId="deposit-address" label={t("stored.address")} />
      </div>
      <p className="muted">{t("stored.address_hint", { currency, chain })}</p>
      <p className="muted" data-testid="address-own">
        {t("stored.address_own")}
      </p>
    </>
  );
}
