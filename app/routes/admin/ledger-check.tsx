import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher, useLoaderData, useRevalidator } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { TableWrap } from "../../components/admin/money";
import { adminApi, adminApiOrLogin } from "../../lib/admin.server";
import { formatDateTime } from "../../lib/format";
import { formatUsdtExact } from "../../../worker/domain/money/units";
import type { LedgerReport } from "../../../worker/domain/ledger/check";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

/** The ledger check as the console API answers it: the domain report plus its totals as text. */
type Report = LedgerReport & { debits: string; credits: string; balance_sum: string };

type Liabilities = {
  snapshots: { id: number; taken_at_ms: number | null; total_micro: number; ledger_micro: number; accounts: number; taken_by: string }[];
  addresses: { chain: string; address: string }[];
  addresses_total: number;
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  const [res, liabilities] = await Promise.all([
    adminApiOrLogin<Report>(context, request, "/api/admin/ledger/check"),
    adminApiOrLogin<Liabilities>(context, request, "/api/admin/proof/liabilities/list"),
  ]);
  return { report: res.code === 1 ? res.data : null, error: res.code === 1 ? "" : res.msg, checked_at: Date.now(), liabilities: liabilities.code === 1 ? liabilities.data : null };
}

/** "Take a snapshot now": the proof-of-liabilities snapshot, audited by the API. */
export async function action({ request, context }: ActionFunctionArgs) {
  return adminApi(context, request, "/api/admin/proof/liabilities", {});
}

/** Recomputes every balance from the transfers: the books balance when this says OK. */
export default function AdminLedger() {
  const { t, i18n } = useTranslation("admin");
  const { report: r, error, checked_at, liabilities } = useLoaderData<typeof loader>();
  const revalidator = useRevalidator();
  const lng = i18n.language;
  const running = revalidator.state !== "idle";
  return (
    <section>
      <div className="page-head">
        <h1>{t("ledger.title")}</h1>
        <button type="button" className="btn btn-sm btn-primary" onClick={() => revalidator.revalidate()} disabled={running} data-testid="ledger-run">
          {running ? t("ledger.running") : t("ledger.run")}
        </button>
      </div>
      <p className="muted">{t("ledger.note")}</p>
      {!r ? (
        <p className="notice notice-bad">{error}</p>
      ) : (
        <>
          <div className={r.ok ? "ledger-banner ok" : "ledger-banner bad"} role="status">
            <strong data-testid="ledger-status">{r.ok ? "OK" : "MISMATCH"}</strong>
            <span>{r.ok ? t("ledger.ok_text") : t("ledger.bad_text")}</span>
            <span className="muted">{t("ledger.checked_at", { time: formatDateTime(checked_at, lng) })}</span>
          </div>
          <div className="stats">
            <Stat label={t("ledger.accounts")} value={r.accounts.toLocaleString(lng)} />
            <Stat label={t("ledger.transfers")} value={r.transfers.toLocaleString(lng)} />
            <Stat label={t("ledger.debits")} value={formatUsdtExact(r.debits_micro, lng)} bad={r.debits_micro !== r.credits_micro} />
            <Stat label={t("ledger.credits")} value={formatUsdtExact(r.credits_micro, lng)} bad={r.debits_micro !== r.credits_micro} />
            <Stat label={t("ledger.balance_sum")} value={formatUsdtExact(r.balance_sum_micro, lng)} note={t("ledger.balance_sum_note")} bad={r.balance_sum_micro !== 0} testId="ledger-balance-sum" />
            <Stat label={t("ledger.unsafe")} value={String(r.unsafe_amounts)} bad={r.unsafe_amounts !== 0} />
          </div>

          <h2>{t("ledger.drift_title")}</h2>
          <p className="muted">{t("ledger.drift_note")}</p>
          {r.drift.length === 0 ? (
            <p className="notice notice-good">{t("ledger.none")}</p>
          ) : (
            <TableWrap>
              <table className="table money-table" data-testid="ledger-drift">
                <thead>
                  <tr>
                    <th>{t("ledger.col_account")}</th>
                    <th className="num">{t("ledger.col_cached")}</th>
                    <th className="num">{t("ledger.col_ledger")}</th>
                    <th className="num">{t("ledger.col_difference")}</th>
                  </tr>
                </thead>
                <tbody>
                  {r.drift.map((d) => (
                    <tr key={d.account_key}>
                      <td>
                        <code className="mono">{d.account_key}</code>
                      </td>
                      <td className="num">{formatUsdtExact(d.cached_balance_micro, lng)}</td>
                      <td className="num">{formatUsdtExact(d.ledger_balance_micro, lng)}</td>
                      <td className="num amount-neg">{formatUsdtExact(d.cached_balance_micro - d.ledger_balance_micro, lng)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}

          <h2>{t("ledger.negative_title")}</h2>
          {r.negative_user_accounts.length === 0 ? (
            <p className="notice notice-good">{t("ledger.none")}</p>
          ) : (
            <ul className="plain-list notice notice-bad" data-testid="ledger-negative">
              {r.negative_user_accounts.map((k) => (
                <li key={k}>
                  <code className="mono">{k}</code>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      {liabilities ? <LiabilitiesPanel data={liabilities} lng={lng} /> : null}
    </section>
  );
}

/** Proof of liabilities: what the snapshots say users are owed, against the ledger, and where the reserves sit. */
function LiabilitiesPanel({ data, lng }: { data: Liabilities; lng: string }) {
  const { t } = useTranslation("admin");
  const take = useFetcher<{ code: number; msg: string }>();
  const latest = data.snapshots[0];
  return (
    <section data-testid="liabilities-panel">
      <div className="page-head">
        <h2>{t("liabilities.title")}</h2>
        <take.Form method="post">
          <button type="submit" className="btn btn-sm btn-primary" disabled={take.state !== "idle"} data-testid="liabilities-take">
            {t("liabilities.take")}
          </button>
        </take.Form>
      </div>
      <p className="muted">{t("liabilities.note")}</p>
      {take.data && take.data.code !== 1 ? <p className="notice notice-bad">{take.data.msg}</p> : null}
      {latest ? (
        <div className="stats">
          <Stat label={t("liabilities.total")} value={formatUsdtExact(latest.total_micro, lng)} unit="USDT" bad={latest.total_micro !== latest.ledger_micro} testId="liabilities-total" />
          <Stat label={t("liabilities.ledger")} value={formatUsdtExact(latest.ledger_micro, lng)} unit="USDT" />
          <Stat label={t("liabilities.accounts")} value={latest.accounts.toLocaleString(lng)} note={latest.taken_at_ms ? formatDateTime(latest.taken_at_ms, lng) : ""} />
        </div>
      ) : (
        <p className="notice">{t("liabilities.none")}</p>
      )}
      <h3>{t("liabilities.reserves", { n: data.addresses_total.toLocaleString(lng) })}</h3>
      <p className="muted">{t("liabilities.reserves_note")}</p>
      <TableWrap>
        <table className="table money-table">
          <thead>
            <tr>
              <th>{t("liabilities.chain")}</th>
              <th>{t("liabilities.address")}</th>
            </tr>
          </thead>
          <tbody>
            {data.addresses.map((a) => (
              <tr key={a.address}>
                <td>{a.chain}</td>
                <td>
                  <code className="mono">{a.address}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </section>
  );
}

function Stat({ label, value, unit, note, bad, testId }: { label: string; value: string; unit?: string; note?: string; bad?: boolean; testId?: string }) {
  return (
    <div className={bad ? "card stat stat-bad" : "card stat"} data-testid={testId}>
      <span className="muted">{label}</span>
      <strong>
        {value} {unit ? <small>{unit}</small> : null}
      </strong>
      {note ? <span className="muted">{note}</span> : null}
    </div>
  );
}
