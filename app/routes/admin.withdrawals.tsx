import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Destination, InlineAction, Pager, StatusPill, StatusTabs, TableWrap, pageParam, statusParam, useAction, usdtExact } from "../components/admin/money";
import { Empty } from "../components/nav";
import { useCopy } from "../components/ui";
import { adminApi, adminApiOrLogin } from "../lib/admin.server";
import { formatDateTime, formatUsdt } from "../lib/format";
export { clientAction } from "../lib/client-action";
export { shouldRevalidate } from "../lib/revalidate";

type WithdrawalItem = {
  id: number;
  user_id: number;
  account: string;
  channel: "trc20" | "bank";
  destination: string;
  /** Full payout details (unmasked card number): operators only. */
  payout_details: string;
  amount: string;
  fee: string;
  actual_amount: string;
  amount_micro: number;
  fee_micro: number;
  actual_micro: number;
  status: "review" | "paid" | "rejected" | "cancelled";
  tx_ref: string | null;
  reason: string | null;
  created_at: number;
  decided_at: number | null;
};

const STATUSES = ["review", "paid", "rejected", "cancelled", "all"] as const;
const ROWS = 30;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const status = statusParam(url, STATUSES);
  const page_no = pageParam(url);
  const res = await adminApiOrLogin<{ items: WithdrawalItem[]; total: number }>(context, request, "/api/admin/withdrawals", { status, page_no, row: ROWS });
  return { items: res.code === 1 ? res.data.items : [], total: res.code === 1 ? res.data.total : 0, status, page_no, error: res.code === 1 ? "" : res.msg };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const id = String(form.get("id") ?? "");
  const intent = String(form.get("intent") ?? "");
  if (!/^\d{1,15}$/.test(id)) return { status: 400, code: 0 as const, msg: "", data: null };
  if (intent === "pay") return adminApi(context, request, `/api/admin/withdrawals/${id}/pay`, { tx_ref: String(form.get("tx_ref") ?? "") });
  if (intent === "reject") return adminApi(context, request, `/api/admin/withdrawals/${id}/reject`, { reason: String(form.get("reason") ?? "") });
  return { status: 400, code: 0 as const, msg: "", data: null };
}

/**
 * The payout queue. The amount is already locked on the user's side; paying sends the actual
 * amount outside the app and records its reference, rejecting unlocks it with a reason.
 */
export default function AdminWithdrawals() {
  const { t } = useTranslation("admin");
  const { items, total, status, page_no, error } = useLoaderData<typeof loader>();
  const decided = status !== "review" && status !== "all";
  return (
    <section>
      <div className="page-head">
        <h1>{t("withdrawals.title")}</h1>
        <span className="muted">{t("count_items", { count: total })}</span>
      </div>
      <p className="muted">{t("withdrawals.note")}</p>
      <StatusTabs statuses={STATUSES} current={status} label={t("withdrawals.title")} />
      {error ? <p className="notice notice-bad">{error}</p> : null}
      {items.length === 0 ? (
        <Empty />
      ) : (
        <TableWrap>
          <table className="table money-table" data-testid="withdrawals-table">
            <thead>
              <tr>
                <th>{t("col.id_time")}</th>
                <th>{t("col.account")}</th>
                <th>{t("withdrawals.col_destination")}</th>
                <th className="num">{t("col.amount")}</th>
                <th className="num">{t("withdrawals.col_fee")}</th>
                <th className="num">{t("withdrawals.col_actual")}</th>
                <th>{decided ? t("col.decision") : t("col.actions")}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((w) => (
                <WithdrawalRow key={w.id} w={w} />
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager page={page_no} total={total} rows={ROWS} />
    </section>
  );
}

function WithdrawalRow({ w }: { w: WithdrawalItem }) {
  const { t, i18n } = useTranslation("admin");
  const { fetcher, busy } = useAction();
  const lng = i18n.language;
  const actual = usdtExact(w.actual_micro, lng);
  const who = w.account || `#${w.user_id}`;
  const copy = useCopy();
  // "USDT · TRC20 · <address>": the address is what gets pasted into the wallet.
  const payTo = w.payout_details || w.destination;
  const address = payTo.split(" · ").pop()?.trim() ?? "";
  return (
    <tr data-testid="withdrawal-row" data-id={w.id} data-status={w.status} className={busy ? "row-busy" : undefined}>
      <td>
        <strong>#{w.id}</strong>
        <div className="muted nowrap">{formatDateTime(w.created_at, lng)}</div>
      </td>
      <td>
        <Link to={`/admin/users/${w.user_id}`}>{who}</Link>
        <div className="muted">ID {w.user_id}</div>
      </td>
      <td className="wrap-cell wide-cell">
        <Destination text={payTo} tag={t(`withdrawals.channel_${w.channel}`)} showHead={w.channel === "bank"} />
        {w.channel === "trc20" && address ? (
          <button type="button" className="link copy-link" onClick={() => copy(address)} data-testid="copy-address">
            {t("withdrawals.copy_address")}
          </button>
        ) : null}
      </td>
      <td className="num">{formatUsdt(w.amount_micro, lng)}</td>
      <td className="num muted-cell">{usdtExact(w.fee_micro, lng)}</td>
      <td className="num strong">{actual}</td>
      <td className="actions-cell">
        {w.status === "review" ? (
          <div className="decide">
            <InlineAction
              fetcher={fetcher}
              busy={busy}
              hidden={{ intent: "pay", id: w.id }}
              name="tx_ref"
              placeholder={t("withdrawals.tx_ref")}
              button={t("withdrawals.pay")}
              inputTestId="tx-ref-input"
              buttonTestId="pay-withdrawal"
              tone="primary"
              maxLength={200}
              confirm={(tx_ref) => t("withdrawals.confirm_pay", { actual, account: who, destination: payTo, tx_ref, id: w.id })}
            />
            <InlineAction
              fetcher={fetcher}
              busy={busy}
              hidden={{ intent: "reject", id: w.id }}
              name="reason"
              placeholder={t("reject_reason")}
              button={t("reject")}
              inputTestId="reason-input"
              buttonTestId="reject-withdrawal"
            />
          </div>
        ) : (
          <div className="decided">
            <StatusPill status={w.status} />
            {w.decided_at ? <div className="muted nowrap">{formatDateTime(w.decided_at, lng)}</div> : null}
            {w.tx_ref ? (
              <div className="decided-reason">
                {t("withdrawals.tx_ref")}: <code className="mono">{w.tx_ref}</code>
              </div>
            ) : null}
            {w.reason ? <div className="decided-reason">{w.reason}</div> : null}
          </div>
        )}
      </td>
    </tr>
  );
}
