import type { LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { RecordList } from "../../components/money/record-list";
import { LocalTime } from "../../components/money/local-time";
import { StatusBadge, type StatusTone } from "../../components/money/status-badge";
import { AppLink, Screen } from "../../components/nav";
import { AskServiceButton } from "../../components/service/ask-button";
import { apiOrLogin } from "../../lib/api.server";
import { formatUsdt } from "../../../worker/domain/money/units";
import { loadPages, PAGE_ROWS, pagesParam, type DepositItem, type DepositStatus, type Paged } from "../../lib/money";
import { useRootData } from "../../root";
import serviceStyles from "../../styles/service.css";
import moneyStyles from "../../styles/money.css";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: moneyStyles },
  { rel: "stylesheet", href: serviceStyles },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const pages = pagesParam(new URL(request.url));
  return loadPages<DepositItem>(
    pages,
    (page_no) => apiOrLogin<Paged<DepositItem>>(context, request, "/api/user/recharge_list", { page_no, row: PAGE_ROWS }),
    (d) => String(d.id),
  );
}

const TONE: Record<DepositStatus, StatusTone> = { review: "pending", confirming: "pending", approved: "good", rejected: "bad" };

/** Every recharge the user reported, newest first, with its review state explained. */
export default function RechargeRecords() {
  const { t } = useTranslation("wallet");
  const { items, total, pages, error } = useLoaderData<typeof loader>();
  return (
    <Screen title={t("recharge_record.title")} back>
      <RecordList
        label={t("recharge_record.title")}
        items={items}
        error={error}
        pages={pages}
        total={total}
        emptyAction={
          <AppLink to="/pages/me/sub/stored" className="btn btn-primary">
            {t("recharge_record.go_recharge")}
          </AppLink>
        }
        renderItem={(d) => <DepositRow key={d.id} d={d} />}
      />
    </Screen>
  );
}

function DepositRow({ d }: { d: DepositItem }) {
  const { t } = useTranslation("wallet");
  const locale = useRootData()?.locale ?? "en";
  const explain =
    d.status === "rejected"
      ? d.reason
        ? t("deposit_explain.rejected", { reason: d.reason })
        : t("deposit_explain.rejected_no_reason")
      : t(`deposit_explain.${d.status}`);
  return (
    <li className="card m-item" data-testid="recharge-row" data-id={d.id}>
      <div className="m-item-head">
        <div>
          <p className="m-item-amount">
            {formatUsdt(d.amount_micro, locale)} <span className="m-unit">{t("unit")}</span>
          </p>
          <p className="m-item-sub">
            <span className="m-tag">{t(`recharge_record.kind_${d.kind}`)}</span>
            <span>#{d.id}</span>
          </p>
        </div>
        <StatusBadge status={d.status} tone={TONE[d.status] ?? "neutral"} label={t(`deposit_status.${d.status}`, { defaultValue: d.status })} />
      </div>
      <p className={`m-explain m-explain-${TONE[d.status] ?? "neutral"}`}>{explain}</p>
      {/* The credit is what arrived, which can differ from what was reported. */}
      {d.status === "approved" && d.credited_micro !== null && d.credited_micro !== d.amount_micro ? (
        <p className="m-explain" data-testid="recharge-credited">
          {t("deposit_credited", { amount: formatUsdt(d.credited_micro, locale) })}
        </p>
      ) : null}
      <dl className="m-facts">
        <div>
          <dt>{t("recharge_record.to")}</dt>
          <dd className="m-mono m-break">{d.destination}</dd>
        </div>
        {d.tx_hash ? (
          <div>
            <dt>{t("recharge_record.tx_hash")}</dt>
            <dd className="m-mono m-break">{d.tx_hash}</dd>
          </div>
        ) : null}
        <div>
          <dt>{t("recharge_record.submitted")}</dt>
          <dd><LocalTime ms={d.created_at} locale={locale} /></dd>
        </div>
        {d.decided_at ? (
          <div>
            <dt>{t("recharge_record.decided")}</dt>
            <dd><LocalTime ms={d.decided_at} locale={locale} /></dd>
          </div>
        ) : null}
        <div>
          <dt>{t("recharge_record.screenshot")}</dt>
          <dd>
            <a href={d.image} target="_blank" rel="noreferrer" className="m-shot" data-testid="recharge-screenshot">
              <img src={d.image} alt={t("recharge_record.screenshot_alt", { id: d.id })} loading="lazy" />
              <span>{t("recharge_record.open_screenshot")}</span>
            </a>
          </dd>
        </div>
      </dl>
      <div className="m-item-actions">
        <AskServiceButton kind="deposit" refId={d.id} variant="link" />
      </div>
    </li>
  );
}
