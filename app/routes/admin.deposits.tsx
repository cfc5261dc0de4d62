import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Destination, InlineAction, Pager, Screenshot, StatusPill, StatusTabs, TableWrap, pageParam, statusParam, useAction } from "../components/admin/money";
import { Empty } from "../components/nav";
import { useUi } from "../components/ui";
import { adminApi, adminApiOrLogin } from "../lib/admin.server";
import { formatDateTime, formatUsdt } from "../lib/format";
export { clientAction } from "../lib/client-action";
export { shouldRevalidate } from "../lib/revalidate";

type DepositItem = {
  id: number;
  user_id: number;
  account: string;
  kind: "crypto" | "bank";
  destination: string;
  amount: string;
  amount_micro: number;
  tx_hash: string;
  image: string;
  status: "review" | "approved" | "rejected";
  reason: string | null;
  created_at: number;
  decided_at: number | null;
};

const STATUSES = ["review", "approved", "rejected", "all"] as const;
const ROWS = 30;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const status = statusParam(url, STATUSES);
  const page_no = pageParam(url);
  const res = await adminApiOrLogin<{ items: DepositItem[]; total: number }>(context, request, "/api/admin/deposits", { status, page_no, row: ROWS });
  return { items: res.code === 1 ? res.data.items : [], total: res.code === 1 ? res.data.total : 0, status, page_no, error: res.code === 1 ? "" : res.msg };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const id = String(form.get("id") ?? "");
  const intent = String(form.get("intent") ?? "");
  if (!/^\d{1,15}$/.test(id)) return { status: 400, code: 0 as const, msg: "", data: null };
  if (intent === "approve") return adminApi(context, request, `/api/admin/deposits/${id}/approve`);
  if (intent === "reject") return adminApi(context, request, `/api/admin/deposits/${id}/reject`, { reason: String(form.get("reason") ?? "") });
  return { status: 400, code: 0 as const, msg: "", data: null };
}

/** The deposit review queue: check the screenshot and hash, then credit or refuse with a reason. */
export default function AdminDeposits() {
  const { t } = useTranslation("admin");
  const { items, total, status, page_no, error } = useLoaderData<typeof loader>();
  const decided = status !== "review" && status !== "all";
  return (
    <section>
      <div className="page-head">
        <h1>{t("deposits.title")}</h1>
        <span className="muted">{t("count_items", { count: total })}</span>
      </div>
      <p className="muted">{t("deposits.note")}</p>
      <StatusTabs statuses={STATUSES} current={status} label={t("deposits.title")} />
      {error ? <p className="notice notice-bad">{error}</p> : null}
      {items.length === 0 ? (
        <Empty />
      ) : (
        <TableWrap>
          <table className="table money-table" data-testid="deposits-table">
            <thead>
              <tr>
                <th>{t("col.id_time")}</th>
                <th>{t("col.account")}</th>
                <th>{t("deposits.col_destination")}</th>
                <th className="num">{t("col.amount")}</th>
                <th>{t("deposits.col_shot")}</th>
                <th>{decided ? t("col.decision") : t("col.actions")}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((d) => (
                <DepositRow key={d.id} d={d} />
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager page={page_no} total={total} rows={ROWS} />
    </section>
  );
}

function DepositRow({ d }: { d: DepositItem }) {
  const { t, i18n } = useTranslation("admin");
  const ui = useUi();
  const { fetcher, busy } = useAction();
  const amount = formatUsdt(d.amount_micro, i18n.language);
  async function approve() {
    if (!(await ui.confirm(t("deposits.confirm_approve", { amount, account: d.account || `#${d.user_id}`, id: d.id })))) return;
    fetcher.submit({ intent: "approve", id: String(d.id) }, { method: "post" });
  }
  return (
    <tr data-testid="deposit-row" data-id={d.id} data-status={d.status} className={busy ? "row-busy" : undefined}>
      <td>
        <strong>#{d.id}</strong>
        <div className="muted nowrap">{formatDateTime(d.created_at, i18n.language)}</div>
      </td>
      <td>
        <Link to={`/admin/users/${d.user_id}`}>{d.account || `#${d.user_id}`}</Link>
        <div className="muted">ID {d.user_id}</div>
      </td>
      <td className="wrap-cell wide-cell">
        <Destination text={d.destination} tag={t(`deposits.kind_${d.kind}`)} />
        <div className="sub-line">
          <span className="sub-label">{t("deposits.tx_hash")}</span> <code className="mono" title={d.tx_hash}>{d.tx_hash}</code>
        </div>
      </td>
      <td className="num strong">{amount}</td>
      <td>
        <Screenshot src={d.image} alt={t("deposits.shot_alt", { id: d.id })} />
      </td>
      <td className="actions-cell">
        {d.status === "review" ? (
          <div className="decide">
            <button type="button" className="btn btn-sm btn-primary" onClick={approve} disabled={busy} data-testid="approve-deposit">
              {t("approve")}
            </button>
            <InlineAction
              fetcher={fetcher}
              busy={busy}
              hidden={{ intent: "reject", id: d.id }}
              name="reason"
              placeholder={t("reject_reason")}
              button={t("reject")}
              inputTestId="reason-input"
              buttonTestId="reject-deposit"
            />
          </div>
        ) : (
          <div className="decided">
            <StatusPill status={d.status} />
            {d.decided_at ? <div className="muted nowrap">{formatDateTime(d.decided_at, i18n.language)}</div> : null}
            {d.reason ? <div className="decided-reason">{d.reason}</div> : null}
          </div>
        )}
      </td>
    </tr>
  );
}
