import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { InlineAction, Pager, Signed, StatusPill, StatusTabs, TableWrap } from "../../components/admin/money";
import { pageParam, statusParam, useAction, useOperator } from "../../lib/admin-console";
import { Empty } from "../../components/nav";
import { useUi } from "../../components/ui";
import { adminApi, adminApiOrLogin } from "../../lib/admin.server";
import { formatDateTime } from "../../lib/format";
import { formatUsdt } from "../../../worker/domain/money/units";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

type AdjustmentItem = {
  id: number;
  user_id: number;
  direction: "credit" | "debit";
  amount_micro: number;
  amount: string;
  reason: string;
  status: "pending" | "approved" | "rejected";
  requested_by: number;
  decided_by: number | null;
  created_at_ms: number;
  decided_at_ms: number | null;
  /** The user's account name (the API adds it). */
  account: string;
};

const STATUSES = ["pending", "approved", "rejected", "all"] as const;
const ROWS = 30;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const status = statusParam(url, STATUSES);
  const page_no = pageParam(url);
  const res = await adminApiOrLogin<{ items: AdjustmentItem[]; total: number }>(context, request, "/api/admin/adjustments", { status, page_no, row: ROWS });
  return { items: res.code === 1 ? res.data.items : [], total: res.code === 1 ? res.data.total : 0, status, page_no, error: res.code === 1 ? "" : res.msg };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const id = String(form.get("id") ?? "");
  const intent = String(form.get("intent") ?? "");
  if (!/^\d{1,15}$/.test(id)) return { status: 400, code: 0 as const, msg: "", data: null };
  if (intent === "approve") return adminApi(context, request, `/api/admin/adjustments/${id}/approve`);
  if (intent === "reject") return adminApi(context, request, `/api/admin/adjustments/${id}/reject`, { reason: String(form.get("reason") ?? "") });
  return { status: 400, code: 0 as const, msg: "", data: null };
}

/** Four eyes: a balance correction moves money only when a second operator approves it. */
export default function AdminAdjustments() {
  const { t } = useTranslation("admin");
  const { items, total, status, page_no, error } = useLoaderData<typeof loader>();
  return (
    <section>
      <div className="page-head">
        <h1>{t("adjustments.title")}</h1>
        <span className="muted">{t("count_items", { count: total })}</span>
      </div>
      <p className="muted">{t("adjustments.note")}</p>
      <StatusTabs statuses={STATUSES} current={status} label={t("adjustments.title")} />
      {error ? <p className="notice notice-bad">{error}</p> : null}
      {items.length === 0 ? (
        <Empty />
      ) : (
        <TableWrap>
          <table className="table money-table" data-testid="adjustments-table">
            <thead>
              <tr>
                <th>{t("col.id")}</th>
                <th>{t("adjustments.col_user")}</th>
                <th>{t("adjustments.col_direction")}</th>
                <th className="num">{t("col.amount")}</th>
                <th>{t("col.reason")}</th>
                <th>{t("adjustments.col_proposed")}</th>
                <th>{status === "approved" || status === "rejected" ? t("col.decision") : t("col.actions")}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((a) => (
                <AdjustmentRow key={a.id} a={a} />
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager page={page_no} total={total} rows={ROWS} />
    </section>
  );
}

function AdjustmentRow({ a }: { a: AdjustmentItem }) {
  const account = a.account || undefined;
  const { t, i18n } = useTranslation("admin");
  const ui = useUi();
  const me = useOperator();
  const { fetcher, busy } = useAction();
  const lng = i18n.language;
  const mine = me?.id === a.requested_by;
  const who = (id: number) => (id === me?.id ? t("adjustments.you") : t("adjustments.operator_n", { id }));
  async function approve() {
    const message = t(a.direction === "credit" ? "adjustments.confirm_credit" : "adjustments.confirm_debit", { amount: formatUsdt(a.amount_micro, lng), user: account ? `${account} (#${a.user_id})` : `#${a.user_id}`, id: a.id });
    if (!(await ui.confirm(message))) return;
    fetcher.submit({ intent: "approve", id: String(a.id) }, { method: "post" });
  }
  return (
    <tr data-testid="adjustment-row" data-id={a.id} data-status={a.status} className={busy ? "row-busy" : undefined}>
      <td>#{a.id}</td>
      <td>
        <Link to={`/admin/users/${a.user_id}`}>{account ?? t("adjustments.user_n", { id: a.user_id })}</Link>
        {account ? <div className="muted">ID {a.user_id}</div> : null}
      </td>
      <td>
        <span className={`tag tag-${a.direction}`}>{t(`adjustments.direction_${a.direction}`)}</span>
      </td>
      <td className="num strong">
        <Signed micro={a.direction === "credit" ? a.amount_micro : -a.amount_micro} />
      </td>
      <td className="wrap-cell">{a.reason}</td>
      <td>
        {who(a.requested_by)}
        <div className="muted nowrap">{formatDateTime(a.created_at_ms, lng)}</div>
      </td>
      <td className="actions-cell">
        {a.status === "pending" ? (
          <div className="decide">
            <button type="button" className={mine ? "btn btn-sm btn-plain" : "btn btn-sm btn-primary"} onClick={approve} disabled={busy} data-testid="approve-adjustment">
              {t("approve")}
            </button>
            {mine ? <p className="hint-warn">{t("adjustments.yours")}</p> : null}
            <InlineAction
              fetcher={fetcher}
              busy={busy}
              hidden={{ intent: "reject", id: a.id }}
              name="reason"
              placeholder={t("reject_reason")}
              button={t("reject")}
              inputTestId="reason-input"
              buttonTestId="reject-adjustment"
            />
          </div>
        ) : (
          <div className="decided">
            <StatusPill status={a.status} />
            {a.decided_by !== null ? (
              <div className="muted">{a.decided_by === me?.id ? t("adjustments.decided_by_you") : t("adjustments.decided_by", { who: t("adjustments.operator_n", { id: a.decided_by }) })}</div>
            ) : null}
            {a.decided_at_ms ? <div className="muted nowrap">{formatDateTime(a.decided_at_ms, lng)}</div> : null}
          </div>
        )}
      </td>
    </tr>
  );
}
