import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Decided, Destination, InlineAction, QueuePage, SubmitterCells } from "../../components/admin/money";
import { useAction } from "../../lib/admin-console";
import { decideInQueue, loadQueue } from "../../lib/admin-queue.server";
import { useCopy } from "../../components/ui";
import { formatUsdt, formatUsdtExact } from "../../../worker/domain/money/units";
import type { WithdrawalItem as Withdrawal } from "../../lib/money";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

/** A withdrawal as the user sees it, plus who asked and the full payout details (operators only). */
type WithdrawalItem = Withdrawal & {
  user_id: number;
  account: string;
  /** Full payout details (unmasked card number). */
  payout_details: string;
};

const STATUSES = ["review", "paid", "rejected", "cancelled", "all"] as const;

export const loader = ({ request, context }: LoaderFunctionArgs) => loadQueue<WithdrawalItem, (typeof STATUSES)[number]>(context, request, "/api/admin/withdrawals", STATUSES);

export const action = ({ request, context }: ActionFunctionArgs) => decideInQueue(context, request, "/api/admin/withdrawals", { pay: "tx_ref", reject: "reason" });

/**
 * The payout queue. The amount is already locked on the user's side; paying sends the actual
 * amount outside the app and records its reference, rejecting unlocks it with a reason.
 */
export default function AdminWithdrawals() {
  const { t } = useTranslation("admin");
  const data = useLoaderData<typeof loader>();
  return (
    <QueuePage
      title={t("withdrawals.title")}
      note={t("withdrawals.note")}
      statuses={STATUSES}
      data={data}
      tableTestId="withdrawals-table"
      columns={[{ label: t("withdrawals.col_destination") }, { label: t("col.amount"), num: true }, { label: t("withdrawals.col_fee"), num: true }, { label: t("withdrawals.col_actual"), num: true }]}
    >
      {data.items.map((w) => (
        <WithdrawalRow key={w.id} w={w} />
      ))}
    </QueuePage>
  );
}

function WithdrawalRow({ w }: { w: WithdrawalItem }) {
  const { t, i18n } = useTranslation("admin");
  const { fetcher, busy } = useAction();
  const lng = i18n.language;
  const actual = formatUsdtExact(w.actual_micro, lng);
  const who = w.account || `#${w.user_id}`;
  const copy = useCopy();
  // "USDT · TRC20 · <address>": the address is what gets pasted into the wallet.
  const payTo = w.payout_details || w.destination;
  const address = payTo.split(" · ").pop()?.trim() ?? "";
  return (
    <tr data-testid="withdrawal-row" data-id={w.id} data-status={w.status} className={busy ? "row-busy" : undefined}>
      <SubmitterCells id={w.id} created_at={w.created_at} user_id={w.user_id} account={w.account} />
      <td className="wrap-cell wide-cell">
        <Destination text={payTo} tag={t(`withdrawals.channel_${w.channel}`)} showHead={w.channel === "bank"} />
        {w.channel === "trc20" && address ? (
          <button type="button" className="link copy-link" onClick={() => copy(address)} data-testid="copy-address">
            {t("withdrawals.copy_address")}
          </button>
        ) : null}
      </td>
      <td className="num">{formatUsdt(w.amount_micro, lng)}</td>
      <td className="num muted-cell">{formatUsdtExact(w.fee_micro, lng)}</td>
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
          <Decided status={w.status} decided_at={w.decided_at}>
            {w.tx_ref ? (
              <div className="decided-reason">
                {t("withdrawals.tx_ref")}: <code className="mono">{w.tx_ref}</code>
              </div>
            ) : null}
            {w.reason ? <div className="decided-reason">{w.reason}</div> : null}
          </Decided>
        )}
      </td>
    </tr>
  );
}
