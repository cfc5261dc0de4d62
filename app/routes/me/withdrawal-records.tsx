import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useGuardedFetcher } from "../../lib/tap-guard";
import { useTranslation } from "react-i18next";
import { CopyValue } from "../../components/money/copy-value";
import { RecordList } from "../../components/money/record-list";
import { LocalTime } from "../../components/money/local-time";
import { StatusBadge, type StatusTone } from "../../components/money/status-badge";
import { AppLink, Screen } from "../../components/nav";
import { AskServiceButton } from "../../components/service/ask-button";
import { useUi } from "../../components/ui";
import { api, apiOrLogin } from "../../lib/api.server";
import { formatUsdt, formatUsdtExact } from "../../../worker/domain/money/units";
import { loadPages, PAGE_ROWS, pagesParam, type Paged, type WithdrawalItem, type WithdrawalStatus } from "../../lib/money";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useRootData } from "../../root";
import serviceStyles from "../../styles/service.css";
import moneyStyles from "../../styles/money.css";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: moneyStyles },
  { rel: "stylesheet", href: serviceStyles },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const pages = pagesParam(new URL(request.url));
  return loadPages<WithdrawalItem>(
    pages,
    (page_no) => apiOrLogin<Paged<WithdrawalItem>>(context, request, "/api/user/withdraw_list", { page_no, row: PAGE_ROWS }),
    (w) => String(w.id),
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  return api(context, request, "/api/user/withdraw_cancel", { id: String(form.get("id") ?? "") });
}

const TONE: Record<WithdrawalStatus, StatusTone> = { review: "pending", paid: "good", rejected: "bad", cancelled: "neutral" };

/** Every withdrawal request, newest first: what was asked, what arrives, and where it stands. */
export default function WithdrawalRecords() {
  const { t } = useTranslation("wallet");
  const { items, total, pages, error } = useLoaderData<typeof loader>();
  return (
    <Screen title={t("draw_record.title")} back>
      <RecordList
        label={t("draw_record.title")}
        items={items}
        error={error}
        pages={pages}
        total={total}
        emptyAction={
          <AppLink to="/pages/me/sub/draw-money" className="btn btn-primary">
            {t("draw_record.go_withdraw")}
          </AppLink>
        }
        renderItem={(w) => <WithdrawalRow key={w.id} w={w} />}
      />
    </Screen>
  );
}

function WithdrawalRow({ w }: { w: WithdrawalItem }) {
  const { t } = useTranslation("wallet");
  const locale = useRootData()?.locale ?? "en";
  const ui = useUi();
  const fetcher = useGuardedFetcher<PageEnvelope>();
  const busy = fetcher.state !== "idle";
  useEnvelope(fetcher.data, (_data, msg) => ui.toast(msg));
  const amount = formatUsdt(w.amount_micro, locale);
  const tone = TONE[w.status] ?? "neutral";
  // A cancelled or rejected request took no fee and sent nothing: the whole amount came back.
  const returned = w.status === "cancelled" || w.status === "rejected";
  const explain =
    w.status === "rejected"
      ? w.reason
        ? t("withdraw_explain.rejected", { reason: w.reason })
        : t("withdraw_explain.rejected_no_reason")
      : t(`withdraw_explain.${w.status}`, { defaultValue: "" });

  async function cancel() {
    if (!(await ui.confirm(t("draw_record.cancel_confirm", { amount })))) return;
    fetcher.submit({ id: String(w.id) }, { method: "post" });
  }

  return (
    <li className="card m-item" data-testid="withdraw-row" data-id={w.id}>
      <div className="m-item-head">
        <div>
          <p className="m-item-amount">
            {amount} <span className="m-unit">{t("unit")}</span>
          </p>
          <p className="m-item-sub">
            <span className="m-tag">{t(`draw_money.channel_${w.channel}`)}</span>
            <span>#{w.id}</span>
          </p>
        </div>
        <StatusBadge status={w.status} tone={tone} label={t(`withdraw_status.${w.status}`, { defaultValue: w.status })} />
      </div>
      {explain ? <p className={`m-explain m-explain-${tone}`}>{explain}</p> : null}
      <dl className="m-facts">
        <div>
          <dt>{t("draw_record.to")}</dt>
          <dd className="m-mono m-break">{w.destination}</dd>
        </div>
        <div>
          <dt>{t("draw_record.fee")}</dt>
          <dd data-testid="withdraw-row-fee">
            {formatUsdtExact(w.fee_micro, locale)} {t("unit")}
            {returned ? <span className="m-soft"> · {t("draw_record.not_charged")}</span> : null}
          </dd>
        </div>
        <div>
          <dt>{t("draw_record.actual")}</dt>
          <dd data-testid="withdraw-row-actual">
            <strong>{formatUsdtExact(w.actual_micro, locale)}</strong> {t("unit")}
            {returned ? <span className="m-soft"> · {t("draw_record.not_sent")}</span> : null}
          </dd>
        </div>
        <div>
          <dt>{t("draw_record.requested")}</dt>
          <dd>
            <LocalTime ms={w.created_at} locale={locale} />
          </dd>
        </div>
        {w.decided_at ? (
          <div>
            <dt>{t(`draw_record.decided_${w.status}`, { defaultValue: t("draw_record.decided") })}</dt>
            <dd>
              <LocalTime ms={w.decided_at} locale={locale} />
            </dd>
          </div>
        ) : null}
        {w.status === "paid" && w.tx_ref ? (
          <div>
            <dt>{t("draw_record.tx_ref")}</dt>
            <dd>
              <CopyValue value={w.tx_ref} testId="withdraw-tx-ref" label={t("draw_record.tx_ref")} />
            </dd>
          </div>
        ) : null}
      </dl>
      <div className="m-item-actions">
        <AskServiceButton kind="withdrawal" refId={w.id} variant="link" />
        {w.status === "review" ? (
          <button type="button" className="btn btn-danger" onClick={cancel} disabled={busy} data-testid="withdraw-cancel">
            {t("draw_record.cancel")}
          </button>
        ) : null}
      </div>
    </li>
  );
}
