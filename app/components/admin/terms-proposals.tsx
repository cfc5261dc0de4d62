import { TableWrap } from "./money";
import { useTranslation } from "react-i18next";
import { useAction, useOperator } from "../../lib/admin-console";
import { formatDateTime } from "../../lib/format";
import { useUi } from "../ui";
import { InlineAction } from "./money";
import type { proposalOut } from "../../../worker/api/resources/admin-terms";

/** A proposal of new terms as the console reads it. */
export type ProposalOut = ReturnType<typeof proposalOut>;

/**
 * Proposed terms waiting for a second operator (decision 121): what each would change, term by
 * term, who proposed it and why. A different operator opens it; anyone declines with a reason.
 * The page's action forwards intents "open" and "decline" (app/lib/admin-terms.server.ts).
 */
export function TermsProposals({ proposals, empty = false }: { proposals: ProposalOut[]; empty?: boolean }) {
  const { t } = useTranslation("admin");
  // One action for the list, not one per card: an opened or declined proposal leaves the list in
  // the same render that brings the answer, and its words must still be said.
  const action = useAction();
  if (proposals.length === 0) return empty ? <p className="muted">{t("terms.none")}</p> : null;
  return (
    <div className="terms-proposals" data-testid="terms-proposals">
      {proposals.map((p) => (
        <ProposalCard key={p.id} p={p} action={action} />
      ))}
    </div>
  );
}

function ProposalCard({ p, action }: { p: ProposalOut; action: ReturnType<typeof useAction> }) {
  const { t, i18n } = useTranslation("admin");
  const ui = useUi();
  const me = useOperator();
  const { fetcher, busy } = action;
  const mine = me?.id === p.proposed_by;
  const target = p.kind === "withdrawal" ? t(`withdrawals.channel_${p.target}`) : p.target;
  async function open() {
    if (!(await ui.confirm(t("terms.confirm_open", { target })))) return;
    fetcher.submit({ intent: "open", id: String(p.id) }, { method: "post" });
  }
  return (
    <div className="card terms-card" data-testid="terms-proposal" data-id={p.id} data-target={p.target}>
      <h3 className="card-title">
        {p.new_market ? <span className="tag">{t("terms.new_market")}</span> : null}
        {t("terms.title", { target })}
      </h3>
      <p className="muted">
        {t("terms.proposed_by", { operator: p.proposed_by_account ?? `#${p.proposed_by}`, time: formatDateTime(p.proposed_at, i18n.language) })} · {p.reason}
      </p>
      <TableWrap fit>
        <table className="table">
          <thead>
            <tr>
              <th>{t("terms.term")}</th>
              <th>{t("terms.now")}</th>
              <th>{t("terms.proposed")}</th>
            </tr>
          </thead>
          <tbody>
            {p.changes.map((c) => (
              <tr key={c.field} data-field={c.field}>
                <th>{t(`terms.field.${c.field}`)}</th>
                <td className="wrap-cell">{c.before ?? "—"}</td>
                <td className="wrap-cell strong" data-testid="terms-after">
                  {c.after || t("terms.always_open")}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <div className="decide">
        {mine ? (
          <p className="muted" data-testid="terms-yours">
            {t("terms.yours")}
          </p>
        ) : (
          <button type="button" className="btn btn-sm btn-primary" disabled={busy} onClick={open} data-testid="terms-open">
            {t("terms.open")}
          </button>
        )}
        <InlineAction fetcher={fetcher} busy={busy} hidden={{ intent: "decline", id: p.id }} name="reason" placeholder={t("reject_reason")} button={t("terms.decline")} inputTestId="terms-decline-reason" buttonTestId="terms-decline" />
      </div>
    </div>
  );
}
