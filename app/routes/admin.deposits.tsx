import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Decided, Destination, InlineAction, QueuePage, Screenshot, SubmitterCells, useAction } from "../components/admin/money";
import { decideInQueue, loadQueue } from "../components/admin/queue.server";
import { useUi } from "../components/ui";
import { formatUsdt } from "../lib/format";
import type { DepositItem as Deposit } from "../lib/money";
export { clientAction } from "../lib/client-action";
export { shouldRevalidate } from "../lib/revalidate";

/** A deposit as the user sees it, plus who sent it (operators only). */
type DepositItem = Deposit & { user_id: number; account: string };

const STATUSES = ["review", "approved", "rejected", "all"] as const;

export const loader = ({ request, context }: LoaderFunctionArgs) => loadQueue<DepositItem, (typeof STATUSES)[number]>(context, request, "/api/admin/deposits", STATUSES);

export const action = ({ request, context }: ActionFunctionArgs) => decideInQueue(context, request, "/api/admin/deposits", { approve: null, reject: "reason" });

/** The deposit review queue: check the screenshot and hash, then credit or refuse with a reason. */
export default function AdminDeposits() {
  const { t } = useTranslation("admin");
  const data = useLoaderData<typeof loader>();
  return (
    <QueuePage
      title={t("deposits.title")}
      note={t("deposits.note")}
      statuses={STATUSES}
      data={data}
      tableTestId="deposits-table"
      columns={[{ label: t("deposits.col_destination") }, { label: t("col.amount"), num: true }, { label: t("deposits.col_shot") }]}
    >
      {data.items.map((d) => (
        <DepositRow key={d.id} d={d} />
      ))}
    </QueuePage>
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
      <SubmitterCells id={d.id} created_at={d.created_at} user_id={d.user_id} account={d.account} />
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
          <Decided status={d.status} decided_at={d.decided_at}>
            {d.reason ? <div className="decided-reason">{d.reason}</div> : null}
          </Decided>
        )}
      </td>
    </tr>
  );
}
