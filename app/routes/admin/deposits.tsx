import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import type { FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { Decided, Destination, InlineAction, QueuePage, Screenshot, StatusPill, SubmitterCells, TableWrap } from "../../components/admin/money";
import { useAction, useOperator } from "../../lib/admin-console";
import { decideInQueue, loadQueue } from "../../lib/admin-queue.server";
import { useUi } from "../../components/ui";
import { adminApi } from "../../lib/admin.server";
import { formatUsdt, parseAmount } from "../../../worker/domain/money/units";
import type { DepositItem as Deposit } from "../../lib/money";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

/** A deposit as the user sees it, plus who sent it, the verification and who made it (operators only). */
type DepositItem = Deposit & {
  user_id: number;
  account: string;
  tx_ref: string;
  approved_by: number | null;
  approved_by_account: string | null;
  wait_reasons: string[];
  confirmed_by_account: string | null;
  address_owner: { user_id: number; account: string; index: number } | null;
};

const STATUSES = ["review", "confirming", "approved", "rejected", "all"] as const;

/**
 * The chosen tab, plus (on the review tab) the deposits waiting for a second operator, and the
 * four-eyes threshold so the approve form can say which step it takes.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const queue = await loadQueue<DepositItem, (typeof STATUSES)[number]>(context, request, "/api/admin/deposits", STATUSES);
  const [waiting, config] = await Promise.all([
    queue.status === "review" ? adminApi<{ items: DepositItem[] }>(context, request, "/api/admin/deposits", { status: "confirming", row: 100 }) : null,
    adminApi<{ four_eyes: { threshold_micro: number; operator_24h_micro: number; user_24h_micro: number } }>(context, request, "/api/admin/money_config"),
  ]);
  return {
    ...queue,
    waiting: waiting?.code === 1 ? waiting.data.items : [],
    threshold_micro: config.code === 1 ? config.data.four_eyes.threshold_micro : null,
    solo: config.code === 1 ? { operator: config.data.four_eyes.operator_24h_micro, user: config.data.four_eyes.user_24h_micro } : null,
  };
}

export const action = ({ request, context }: ActionFunctionArgs) => decideInQueue(context, request, "/api/admin/deposits", { approve: ["amount", "tx_ref"], reject: "reason" });

/** The deposit review queue: check the transfer at the user's own address, then credit what arrived or refuse with a reason. */
export default function AdminDeposits() {
  const { t, i18n } = useTranslation("admin");
  const data = useLoaderData<typeof loader>();
  const columns = [{ label: t("deposits.col_destination") }, { label: t("col.amount"), num: true }, { label: t("deposits.col_shot") }];
  return (
    <>
      <QueuePage title={t("deposits.title")} note={t("deposits.note")} statuses={STATUSES} data={data} tableTestId="deposits-table" columns={columns}>
        {data.items.map((d) => (
          <DepositRow key={d.id} d={d} threshold={data.threshold_micro} />
        ))}
      </QueuePage>
      {data.threshold_micro !== null ? <p className="muted">{t("deposits.threshold_hint", { threshold: formatUsdt(data.threshold_micro, i18n.language) })}</p> : null}
      {data.solo ? <p className="muted" data-testid="solo-limits">{t("deposits.solo_limits_hint", { operator: formatUsdt(data.solo.operator, i18n.language), user: formatUsdt(data.solo.user, i18n.language) })}</p> : null}
      {data.waiting.length > 0 ? (
        <section data-testid="deposits-waiting">
          <h2>{t("deposits.waiting_title")}</h2>
          <p className="muted">{t("deposits.waiting_note")}</p>
          <TableWrap>
            <table className="table money-table" data-testid="waiting-table">
              <tbody>
                {data.waiting.map((d) => (
                  <DepositRow key={d.id} d={d} threshold={data.threshold_micro} />
                ))}
              </tbody>
            </table>
          </TableWrap>
        </section>
      ) : null}
    </>
  );
}

function DepositRow({ d, threshold }: { d: DepositItem; threshold: number | null }) {
  const { t, i18n } = useTranslation("admin");
  const { fetcher, busy } = useAction();
  const waiting = d.status === "review" || d.status === "confirming";
  return (
    <tr data-testid="deposit-row" data-id={d.id} data-status={d.status} className={busy ? "row-busy" : undefined}>
      <SubmitterCells id={d.id} created_at={d.created_at} user_id={d.user_id} account={d.account} />
      <td className="wrap-cell wide-cell">
        <Destination text={d.destination} tag={t(`deposits.kind_${d.kind}`)} />
        {d.kind === "crypto" ? <SentTo d={d} /> : null}
        <div className="sub-line">
          <span className="sub-label">{t("deposits.tx_hash")}</span> <code className="mono" title={d.tx_hash}>{d.tx_hash}</code>
        </div>
        <Verification d={d} />
      </td>
      <td className="num strong">
        <div>
          <span className="sub-label">{t("deposits.claimed")}</span> {formatUsdt(d.amount_micro, i18n.language)}
        </div>
        {d.credited_micro !== null ? (
          <div data-testid="deposit-credited">
            <span className="sub-label">{t("deposits.credited")}</span> {formatUsdt(d.credited_micro, i18n.language)}
          </div>
        ) : null}
      </td>
      <td>
        <Screenshot src={d.image} alt={t("deposits.shot_alt", { id: d.id })} />
      </td>
      <td className="actions-cell">
        {waiting ? (
          <div className="decide">
            <ApproveForm d={d} threshold={threshold} fetcher={fetcher} busy={busy} />
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

/** Where the money was sent: the user's own address, and whose address it is on record. */
function SentTo({ d }: { d: DepositItem }) {
  const { t } = useTranslation("admin");
  const owner = d.address_owner;
  return (
    <div className="sub-line" data-testid="deposit-sent-to">
      <span className="sub-label">{t("deposits.sent_to")}</span> <code className="mono">{d.address}</code>{" "}
      <span className={owner && owner.user_id === d.user_id ? "muted" : "amount-neg"}>
        {owner ? t("deposits.address_owner", { account: owner.account || `#${owner.user_id}`, user_id: owner.user_id, index: owner.index }) : t("deposits.address_not_user")}
      </span>
    </div>
  );
}

/** The recorded verification: the reference, who approved first and who confirmed. */
function Verification({ d }: { d: DepositItem }) {
  const { t } = useTranslation("admin");
  if (!d.approved_by_account) return null;
  return (
    <div className="sub-line" data-testid="deposit-verification">
      {d.status === "confirming" ? <StatusPill status="confirming" /> : null}{" "}
      <span className="sub-label">{t("deposits.tx_ref")}:</span> <code className="mono">{d.tx_ref}</code>{" "}
      <span data-testid="first-approver">{t("deposits.first_by", { operator: d.approved_by_account })}</span>
      {d.confirmed_by_account ? <> · {t("deposits.confirmed_by", { operator: d.confirmed_by_account })}</> : null}
      {d.wait_reasons.length > 0 ? (
        <div data-testid="wait-reasons">
          <span className="sub-label">{t("deposits.wait_label")}</span>{" "}
          {d.wait_reasons.map((r) => (
            <span key={r} className="tag" data-reason={r}>
              {t(`deposits.wait_reason.${r}`)}
            </span>
          ))}
        </div>
      ) : null}
    </div>
  );
}

/**
 * Approve with what was verified: the amount (prefilled with the user's claim) and the
 * reference. The confirmation says whether this credits at once, records a first approval
 * (at or above the threshold) or completes a second one. The first approver cannot confirm.
 */
function ApproveForm({ d, threshold, fetcher, busy }: { d: DepositItem; threshold: number | null; fetcher: ReturnType<typeof useAction>["fetcher"]; busy: boolean }) {
  const { t, i18n } = useTranslation("admin");
  const ui = useUi();
  const me = useOperator();
  if (d.status === "confirming" && me && d.approved_by === me.id) return <p className="muted" data-testid="yours-first">{t("deposits.yours_first")}</p>;
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const typed = parseAmount(String(data.get("amount") ?? ""));
    const tx_ref = String(data.get("tx_ref") ?? "").trim();
    if (typed.status !== "ok") return ui.toast(t("deposits.need_amount"));
    const micro = typed.amount_micro;
    if (!tx_ref) return ui.toast(t("need_value", { field: t("deposits.tx_ref") }));
    const vars = { id: d.id, amount: formatUsdt(micro, i18n.language), account: d.account || `#${d.user_id}`, tx_ref };
    // Above the claim or the threshold it surely waits; past a daily total the answer says so.
    const key = d.status === "confirming" ? "deposits.confirm_second" : micro > d.amount_micro || (threshold !== null && micro >= threshold) ? "deposits.confirm_first" : "deposits.confirm_approve";
    if (!(await ui.confirm(t(key, vars)))) return;
    fetcher.submit(data, { method: "post" });
  }
  return (
    <form className="inline-action approve-form" onSubmit={onSubmit} noValidate data-testid="approve-form">
      <input type="hidden" name="intent" value="approve" />
      <input type="hidden" name="id" value={d.id} />
      <input name="amount" defaultValue={d.amount} inputMode="decimal" style={{ maxWidth: 120 }} aria-label={t("deposits.verified_amount")} placeholder={t("deposits.verified_amount")} data-testid="approve-amount" autoComplete="off" disabled={busy} />
      <input name="tx_ref" placeholder={t("deposits.tx_ref")} aria-label={t("deposits.tx_ref")} maxLength={200} data-testid="approve-tx-ref" autoComplete="off" disabled={busy} />
      <button type="submit" className="btn btn-sm btn-primary" disabled={busy} data-testid="approve-deposit">
        {d.status === "confirming" ? t("deposits.confirm_button") : t("approve")}
      </button>
    </form>
  );
}
