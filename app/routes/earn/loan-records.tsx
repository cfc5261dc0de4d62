import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useGuardedFetcher } from "../../lib/tap-guard";
import { useTranslation } from "react-i18next";
import type { PoolOrderOut } from "../../../worker/api/resources/earn";
import { formatUsdt, formatUsdtExact } from "../../../worker/domain/money/units";
import { LocalTime } from "../../components/money/local-time";
import { RecordList } from "../../components/money/record-list";
import { StatusBadge, type StatusTone } from "../../components/money/status-badge";
import { AppLink, Screen } from "../../components/nav";
import { useUi } from "../../components/ui";
import { api, apiOrLogin } from "../../lib/api.server";
import { loadPages, PAGE_ROWS, pagesParam, type Paged } from "../../lib/money";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useRootData } from "../../root";
import moneyStyles from "../../styles/money.css";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const pages = pagesParam(new URL(request.url));
  return loadPages<PoolOrderOut>(
    pages,
    (page_no) => apiOrLogin<Paged<PoolOrderOut>>(context, request, "/api/index/orders", { page_no, row: PAGE_ROWS }),
    (o) => String(o.id),
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  return api(context, request, "/api/index/qx", { id: String(form.get("id") ?? "") });
}

const TONE: Record<PoolOrderOut["status"], StatusTone> = { pending: "pending", settled: "good", redeemed: "neutral" };

/** The user's pool orders, newest first, each with every figure, its state in words, and early redemption. */
export default function LoanRecords() {
  const { t } = useTranslation("wallet");
  const { items, total, pages, error } = useLoaderData<typeof loader>();
  return (
    <Screen title={t("earn.records.title")} back>
      <RecordList
        label={t("earn.records.title")}
        items={items}
        error={error}
        pages={pages}
        total={total}
        emptyAction={
          <AppLink to="/pages/me/sub/loan" className="btn btn-primary" data-testid="loan-records-go">
            {t("earn.loan.title")}
          </AppLink>
        }
        renderItem={(o) => <OrderRow key={o.id} o={o} />}
      />
    </Screen>
  );
}

function Fact({ label, children, testId }: { label: string; children: React.ReactNode; testId?: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}

function OrderRow({ o }: { o: PoolOrderOut }) {
  const { t } = useTranslation("wallet");
  const locale = useRootData()?.locale ?? "en";
  const ui = useUi();
  const fetcher = useGuardedFetcher<PageEnvelope>();
  useEnvelope(fetcher.data, (_d, msg) => ui.toast(msg));
  const usdt = (m: number | null) => (m === null ? "—" : `${formatUsdtExact(m, locale)} USDT`);

  async function redeem() {
    if (!(await ui.confirm(t("earn.records.redeem_confirm")))) return;
    fetcher.submit({ id: String(o.id) }, { method: "post" });
  }

  return (
    <li className="card m-item" data-testid="loan-order" data-id={o.id} data-status={o.status}>
      <div className="m-item-head">
        <div>
          <p className="m-item-amount">
            {formatUsdt(o.amount_micro, locale)} <span className="m-unit">{t("unit")}</span>
          </p>
          <p className="m-item-sub">
            <span>{t("earn.records.order_no", { id: o.id })}</span>
          </p>
        </div>
        <StatusBadge status={o.status} tone={TONE[o.status]} label={t(`earn.status.${o.status}`)} />
      </div>
      <p className={`m-explain m-explain-${TONE[o.status]}`} data-testid="loan-order-explain">
        {t(`earn.explain.${o.status}`)}
      </p>
      <dl className="m-facts">
        <Fact label={t("earn.records.purchased")}>
          <LocalTime ms={o.created_at} locale={locale} />
        </Fact>
        <Fact label={t("earn.records.days")} testId="loan-order-days">{`${o.days_paid} / ${o.days}`}</Fact>
        <Fact label={t("earn.records.daily_rate")}>{o.daily_rate} %</Fact>
        <Fact label={t("earn.records.expiry")}>
          <LocalTime ms={o.expire_at} locale={locale} />
        </Fact>
        <Fact label={t("earn.records.estimated")} testId="loan-order-estimated">{usdt(o.estimated_revenue_micro)}</Fact>
        <Fact label={t("earn.records.profit")} testId="loan-order-profit">{usdt(o.profit_micro)}</Fact>
        {o.penalty_micro !== null && o.penalty_micro > 0 ? <Fact label={t("earn.records.penalty")} testId="loan-order-penalty">{usdt(o.penalty_micro)}</Fact> : null}
        <Fact label={t("earn.records.redeem_amount")} testId="loan-order-redeem-amount">{usdt(o.redeem_amount_micro)}</Fact>
      </dl>
      {o.status === "pending" ? (
        <div className="m-item-actions">
          <button type="button" className="btn btn-danger" onClick={redeem} disabled={fetcher.state !== "idle"} data-testid="loan-redeem">
            {t("earn.records.redeem")}
          </button>
        </div>
      ) : null}
    </li>
  );
}
