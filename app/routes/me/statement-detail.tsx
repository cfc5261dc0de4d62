import type { LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { LocalTime } from "../../components/money/local-time";
import { useLedgerWords } from "../../lib/ledger-words";
import { Notice } from "../../components/money/notice";
import { VerifyRecord } from "../../components/proof/verify-record";
import { AppLink, Screen } from "../../components/nav";
import { apiOrLogin } from "../../lib/api.server";
import { type StatementLine } from "../../lib/money";
import { useRootData } from "../../root";
import moneyStyles from "../../styles/money.css";
import tradeStyles from "../../styles/trade.css";
import { formatSigned, formatUsdtExact } from "../../../worker/domain/money/units";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: moneyStyles },
  { rel: "stylesheet", href: tradeStyles },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const id = new URL(request.url).searchParams.get("id") ?? "";
  if (!/^\d{1,15}$/.test(id)) return { lines: [] as StatementLine[], error: "not_found" };
  const res = await apiOrLogin<{ items: StatementLine[] }>(context, request, "/api/user/record_detail", { id });
  if (res.code === 1) return { lines: res.data.items, error: "" };
  // The API's generic not-found message speaks of addresses; this page says "record".
  return { lines: [] as StatementLine[], error: res.status === 404 ? "not_found" : res.msg };
}

/** Where a ledger reference leads in the app, when there is a page for it. */
const REF_PAGES: Record<string, string> = { deposit: "/pages/me/sub/recharge-record", withdrawal: "/pages/me/sub/draw-record", pool_order: "/pages/me/sub/loan-records", miner_machine: "/pages/me/sub/machine", promotion: "/pages/me/sub/activity" };

/** One ledger transfer as it touched the user's accounts: one line, or two for an internal move. */
export default function TransactionDetail() {
  const { t } = useTranslation("wallet");
  const { lines, error } = useLoaderData<typeof loader>();
  const words = useLedgerWords();
  const locale = useRootData()?.locale ?? "en";
  const first = lines[0];
  if (!first) {
    return (
      <Screen title={t("detail.title")} back>
        <Notice tone="bad" testId="detail-missing">
          <p>{error === "not_found" || !error ? t("detail.missing") : error}</p>
        </Notice>
        <AppLink to="/pages/me/sub/record" className="btn btn-plain btn-block">
          {t("detail.to_statement")}
        </AppLink>
      </Screen>
    );
  }
  const refPage = REF_PAGES[first.ref_type];
  return (
    <Screen title={t("detail.title")} back>
      <section className="card m-detail-head" data-testid="detail">
        <p className="m-detail-code">{words.code(first.code)}</p>
        {lines.length === 1 ? (
          <p className={first.amount_micro < 0 ? "m-detail-amount m-neg" : "m-detail-amount m-pos"} data-testid="detail-amount">
            {formatSigned(first.amount_micro, locale)} <span className="m-unit">{t("unit")}</span>
          </p>
        ) : (
          <p className="m-detail-amount" data-testid="detail-amount">
            {formatUsdtExact(Math.abs(first.amount_micro), locale)} <span className="m-unit">{t("unit")}</span>
          </p>
        )}
        <p className="muted">{lines.length === 1 ? t("detail.one_line") : t("detail.two_lines")}</p>
      </section>

      <section className="card">
        <h2 className="card-title">{t("detail.transfer")}</h2>
        <dl className="rows">
          <div className="row">
            <dt>{t("detail.transfer_id")}</dt>
            <dd className="m-mono">#{first.id}</dd>
          </div>
          <div className="row">
            <dt>{t("detail.reason")}</dt>
            <dd className="m-stack">
              <span>{words.code(first.code)}</span>
              <span className="m-mono m-soft">{first.code}</span>
            </dd>
          </div>
          <div className="row">
            <dt>{t("detail.reference")}</dt>
            <dd className="m-mono" data-testid="detail-ref">
              {refPage ? <AppLink to={refPage}>{`${first.ref_type}/${first.ref_id}`}</AppLink> : `${first.ref_type}/${first.ref_id}`}
            </dd>
          </div>
          <div className="row">
            <dt>{t("detail.time")}</dt>
            <dd>
              <LocalTime ms={first.created_at} locale={locale} />
            </dd>
          </div>
        </dl>
      </section>

      <VerifyRecord
        kind="transfer"
        id={first.id}
        expected={{ kind: "transfer", id: first.id, code: first.code, ref_type: first.ref_type, ref_id: first.ref_id, amount_micro: String(Math.abs(first.amount_micro)), created_at_ms: first.created_at }}
      />

      {lines.map((l) => (
        <section className="card" key={l.account} data-testid="detail-line">
          <h2 className="card-title">{t("detail.line_title", { account: words.account(l.account) })}</h2>
          <dl className="rows">
            <div className="row">
              <dt>{t("detail.account")}</dt>
              <dd className="m-stack">
                <span>{words.account(l.account)}</span>
                <span className="m-mono m-soft">{l.account}</span>
              </dd>
            </div>
            <div className="row">
              <dt>{t("detail.amount")}</dt>
              <dd className={l.amount_micro < 0 ? "m-neg" : "m-pos"}>
                <strong>{formatSigned(l.amount_micro, locale)}</strong> {t("unit")}
              </dd>
            </div>
            <div className="row">
              <dt>{t("detail.balance_after")}</dt>
              <dd>
                {formatUsdtExact(l.balance_after_micro, locale)} {t("unit")}
              </dd>
            </div>
            <div className="row">
              <dt>{t("detail.counterparty")}</dt>
              <dd className="m-mono m-wrap" data-testid="detail-counterparty">
                {l.counterparty}
              </dd>
            </div>
          </dl>
        </section>
      ))}
      <p className="muted m-center">{t("detail.note")}</p>
    </Screen>
  );
}
