import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher, useLoaderData, useNavigate } from "@remix-run/react";
import { useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { formatAmount, formatBp, formatUsdt, formatUsdtExact, parseAmount } from "../../../worker/domain/money/units";
import { quoteWithdrawal, type Quote } from "../../../worker/domain/withdrawals/fees";
import { useFieldGuard } from "../../components/form";
import { AmountInput } from "../../components/money/amount-input";
import { ConfirmPasswordField } from "../../components/money/confirm-password";
import { BankIcon } from "../../components/money/icons";
import { useDateTime } from "../../components/money/local-time";
import { Notice } from "../../components/money/notice";
import { AppLink, Screen } from "../../components/nav";
import { useUi } from "../../components/ui";
import { api, apiOrLogin } from "../../lib/api.server";
import { newRequestKey, type BankCardItem, type WalletItem, type WithdrawalRuleOut, type WithdrawInfo } from "../../lib/money";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useRootData } from "../../root";
import { proofFields, useTwoFactorOn } from "../../lib/two-factor";
import moneyStyles from "../../styles/money.css";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const [info, wallets, banks] = await Promise.all([
    apiOrLogin<WithdrawInfo>(context, request, "/api/user/withdraw_info"),
    apiOrLogin<WalletItem[]>(context, request, "/api/user/wallet_list"),
    apiOrLogin<BankCardItem[]>(context, request, "/api/user/bank_list"),
  ]);
  const failed = [info, wallets, banks].find((r) => r.code !== 1);
  if (failed) throw new Response(failed.msg, { status: failed.status >= 400 ? failed.status : 500 });
  return {
    info: info.data,
    // Only TRC20 addresses can receive a withdrawal (the server refuses other chains).
    wallets: wallets.data.filter((w) => w.chain === "TRC20"),
    banks: banks.data,
    request_key: newRequestKey(),
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const target = String(form.get("target") ?? "");
  const m = /^(wallet|bank):(\d{1,15})$/.exec(target);
  return api(context, request, "/api/user/withdraw", {
    amount: String(form.get("amount") ?? ""),
    wallet_id: m?.[1] === "wallet" ? m[2] : "",
    bank_id: m?.[1] === "bank" ? m[2] : "",
    request_key: String(form.get("request_key") ?? ""),
    password: String(form.get("password") ?? ""),
    code: String(form.get("code") ?? ""),
    terms_version: String(form.get("terms_version") ?? ""),
  });
}

/** The fee rule in words: "1.00 USDT + 0.5% of the amount", "No fee", ... */
function useFeeRule() {
  const { t } = useTranslation("wallet");
  const locale = useRootData()?.locale ?? "en";
  return (rule: WithdrawalRuleOut) => {
    const fixed = formatUsdtExact(rule.fee_fixed_micro, locale);
    const rate = formatBp(rule.fee_rate_bp, locale);
    if (rule.fee_fixed_micro > 0 && rule.fee_rate_bp > 0) return t("draw_money.fee_rule_both", { fixed, rate });
    if (rule.fee_fixed_micro > 0) return t("draw_money.fee_rule_fixed", { fixed });
    if (rule.fee_rate_bp > 0) return t("draw_money.fee_rule_rate", { rate });
    return t("draw_money.fee_rule_none");
  };
}

/** Withdrawal: to a bound TRC20 address or bank card, with the fee and arrival shown live. */
export default function Withdraw() {
  const { t } = useTranslation("wallet");
  const { t: te } = useTranslation("errors");
  const { info, wallets, banks, request_key } = useLoaderData<typeof loader>();
  const locale = useRootData()?.locale ?? "en";
  const ui = useUi();
  const guardFields = useFieldGuard();
  const navigate = useNavigate();
  const feeRule = useFeeRule();
  const dateTime = useDateTime(locale);
  const fetcher = useFetcher<PageEnvelope>();
  const proofs = proofFields(useTwoFactorOn());
  const [target, setTarget] = useState(() => (wallets[0] ? `wallet:${wallets[0].id}` : banks[0] ? `bank:${banks[0].id}` : ""));
  const [amount, setAmount] = useState("");

  useEnvelope(fetcher.data, (_data, msg) => {
    ui.toast(msg);
    setAmount("");
    navigate("/pages/me/sub/draw-record");
  });

  // The chosen target decides the channel, and the channel its fee and minimum.
  const validTarget = (target.startsWith("wallet:") && wallets.some((w) => `wallet:${w.id}` === target)) || (target.startsWith("bank:") && banks.some((b) => `bank:${b.id}` === target));
  const chosen = validTarget ? target : wallets[0] ? `wallet:${wallets[0].id}` : banks[0] ? `bank:${banks[0].id}` : "";
  const channel = chosen.startsWith("bank:") ? "bank" : "trc20";
  const ruleOut = info.rules[channel];
  const rule = { fee_fixed_micro: ruleOut.fee_fixed_micro, fee_rate_bp: ruleOut.fee_rate_bp, min_amount_micro: ruleOut.min_amount_micro, enabled: ruleOut.enabled };

  // Exactly the server's arithmetic (worker/domain/withdrawals/fees.ts), in the browser.
  const parsed = amount === "" ? null : parseAmount(amount);
  const quote: Quote | null = parsed?.status === "ok" ? quoteWithdrawal(rule, parsed.amount_micro) : null;
  const over = parsed?.status === "ok" && parsed.amount_micro > info.available_micro;
  const paused = info.paused_until !== null;
  const hasTargets = wallets.length + banks.length > 0;
  const busy = fetcher.state !== "idle";

  let problem = "";
  if (parsed && parsed.status !== "ok") problem = parsed.status === "too_many_decimals" ? te("amount_decimals") : te("amount_invalid");
  else if (quote?.status === "below_minimum") problem = te("below_minimum", { min: formatUsdt(quote.min_amount_micro, locale) });
  else if (quote?.status === "fee_exceeds_amount") problem = te("fee_exceeds_amount");
  else if (quote?.status === "channel_disabled") problem = te("channel_disabled");
  else if (over) problem = te("insufficient_funds");

  const dash = "—";
  const fee = quote?.status === "ok" ? formatUsdtExact(quote.fee_micro, locale) : dash;
  const actual = quote?.status === "ok" ? formatUsdtExact(quote.actual_micro, locale) : dash;

  return (
    <Screen
      title={t("draw_money.title")}
      back
      right={
        <AppLink to="/pages/me/sub/draw-record" className="m-navbar-action">
          {t("records")}
        </AppLink>
      }
    >
      {paused ? (
        <Notice tone="warn" title={t("draw_money.paused", { until: dateTime(info.paused_until!) })} testId="withdraw-paused">
          <p>{t("draw_money.paused_why")}</p>
        </Notice>
      ) : null}

      <section className="card" aria-labelledby="target-title">
        <h2 className="card-title" id="target-title">
          {t("draw_money.to")}
        </h2>
        {hasTargets ? (
          <div className="m-targets" role="radiogroup" aria-labelledby="target-title">
            {wallets.map((w) => (
              <TargetOption
                key={`w${w.id}`}
                value={`wallet:${w.id}`}
                chosen={chosen}
                onChoose={setTarget}
                disabled={!info.rules.trc20.enabled}
                title={`${w.currency} · ${w.chain}`}
                detail={w.address}
                opens_at={w.opens_at > info.now_ms ? w.opens_at : null}
                mono
                icon={<span className="m-target-usdt">₮</span>}
              />
            ))}
            {banks.map((b) => (
              <TargetOption
                key={`b${b.id}`}
                value={`bank:${b.id}`}
                chosen={chosen}
                onChoose={setTarget}
                disabled={!info.rules.bank.enabled}
                title={b.bank}
                detail={`${b.name} · ${b.card_number}`}
                opens_at={b.opens_at > info.now_ms ? b.opens_at : null}
                icon={<BankIcon />}
              />
            ))}
          </div>
        ) : (
          <div className="m-no-target" data-testid="withdraw-no-target">
            <p>{t("draw_money.no_target")}</p>
          </div>
        )}
        <div className="m-target-links">
          <AppLink to="/pages/me/sub/add-wallet" state={{ back: true }} className="btn btn-plain">
            + {t("draw_money.add_wallet")}
          </AppLink>
          <AppLink to="/pages/me/sub/add-kabaw" state={{ back: true }} className="btn btn-plain">
            + {t("draw_money.add_bank")}
          </AppLink>
        </div>
      </section>

      <fetcher.Form
        method="post"
        className="card form"
        noValidate
        onSubmit={guardFields(["target", "amount", ...proofs])}
      >
        <input type="hidden" name="request_key" value={request_key} />
        <input type="hidden" name="target" value={chosen} />
        {/* The fee shown is the fee charged: new terms opened meanwhile refuse the request and show again. */}
        <input type="hidden" name="terms_version" value={ruleOut.terms_version} />
        <div className="m-available">
          <span className="m-available-label">{t("draw_money.available")}</span>
          <span className="m-available-value">
            <strong data-testid="withdraw-available">{formatUsdt(info.available_micro, locale)}</strong>
            <span className="m-unit">{t("unit")}</span>
          </span>
        </div>
        <AmountInput
          label={t("draw_money.amount")}
          value={amount}
          onChange={setAmount}
          placeholder={t("draw_money.amount_placeholder", { min: formatUsdt(rule.min_amount_micro, locale) })}
          testId="withdraw-amount"
          action={
            <button type="button" className="m-all" data-testid="withdraw-all" onClick={() => setAmount(formatAmount(Math.max(0, info.available_micro)))}>
              {t("draw_money.all")}
            </button>
          }
          hint={problem ? <span className="m-problem" role="alert">{problem}</span> : undefined}
        />
        <dl className="rows m-summary">
          <div className="row">
            <dt>{t("draw_money.channel")}</dt>
            <dd>{t(`draw_money.channel_${channel}`)}</dd>
          </div>
          <div className="row">
            <dt>{t("draw_money.fee_rule")}</dt>
            <dd data-testid="withdraw-fee-rule">{ruleOut.enabled ? feeRule(ruleOut) : te("channel_disabled")}</dd>
          </div>
          <div className="row">
            <dt>{t("draw_money.min_amount")}</dt>
            <dd data-testid="withdraw-min">
              {formatUsdt(ruleOut.min_amount_micro, locale)} {t("unit")}
            </dd>
          </div>
          <div className="row">
            <dt>{t("draw_money.fee")}</dt>
            <dd>
              <span data-testid="withdraw-fee">{fee}</span>
              {fee === dash ? null : <span className="m-unit-after">{t("unit")}</span>}
            </dd>
          </div>
          <div className="row m-summary-total">
            <dt>{t("draw_money.actual")}</dt>
            <dd>
              <strong data-testid="withdraw-actual">{actual}</strong>
              {actual === dash ? null : <span className="m-unit-after">{t("unit")}</span>}
            </dd>
          </div>
        </dl>
        <ConfirmPasswordField />
        <p className="muted">{t("draw_money.note")}</p>
        <button type="submit" className="btn btn-primary btn-block" disabled={busy || paused || !hasTargets} data-testid="withdraw-submit">
          {t("draw_money.submit")}
        </button>
      </fetcher.Form>
    </Screen>
  );
}

function TargetOption({
  value,
  chosen,
  onChoose,
  disabled,
  title,
  detail,
  mono,
  icon,
  opens_at,
}: {
  value: string;
  chosen: string;
  onChoose: (v: string) => void;
  disabled: boolean;
  title: string;
  detail: string;
  mono?: boolean;
  icon: ReactNode;
  /** When a newly bound destination starts receiving withdrawals; null once it is open. */
  opens_at: number | null;
}) {
  const { t } = useTranslation("wallet");
  const dateTime = useDateTime(useRootData()?.locale ?? "en");
  const selected = value === chosen;
  return (
    <button
      type="button"
      role="radio"
      aria-checked={selected}
      disabled={disabled}
      className={selected ? "m-target m-target-on" : "m-target"}
      data-testid="withdraw-target"
      data-value={value}
      onClick={() => onChoose(value)}
    >
      <span className="m-target-icon" aria-hidden="true">
        {icon}
      </span>
      <span className="m-target-text">
        <strong>{title}</strong>
        <span className={mono ? "m-mono m-break" : undefined}>{detail}</span>
        {disabled ? <span className="m-problem">{t("draw_money.channel_off")}</span> : null}
        {opens_at !== null ? (
          <span className="m-problem" data-testid="target-opens">
            {t("draw_money.opens_at", { time: dateTime(opens_at) })}
          </span>
        ) : null}
      </span>
      <span className="m-radio" aria-hidden="true" />
    </button>
  );
}
