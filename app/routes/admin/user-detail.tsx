import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { isRouteErrorResponse, Link, useLoaderData, useRouteError } from "@remix-run/react";
import { useRef } from "react";
import { useTranslation } from "react-i18next";
import { Pager, Signed, StatusPill, TableWrap } from "../../components/admin/money";
import { pageParam, useAction } from "../../lib/admin-console";
import { Field } from "../../components/form";
import { Empty } from "../../components/nav";
import { useUi } from "../../components/ui";
import { adminApi, adminApiOrLogin } from "../../lib/admin.server";
import { formatDateTime } from "../../lib/format";
import type { StatementLine } from "../../lib/money";
import { useLedgerWords } from "../../lib/ledger-words";
import { EarnHoldings, type MinerHoldingRow, type PoolHoldingRow } from "../../components/admin/earn-holdings";
import { formatUsdtExact, parseAmountExact } from "../../../worker/domain/money/units";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

type Line = StatementLine;
type Balances = { available: string; locked_trade: string; locked_pool: string; locked_withdrawal: string; total: string };
type Ledger = { user: { id: number; account: string }; balances: Balances; items: Line[]; total: number; exclusion: { kind: "cool_off" | "exclusion"; started_at_ms: number; until_ms: number } | null };
type UserSession = { id: string; device: string; ip: string; created_at_ms: number; last_seen_at_ms: number };
type Adjustment = { id: number; user_id: number; direction: "credit" | "debit"; amount_micro: number; reason: string; status: string; requested_by: number; created_at_ms: number };

const ROWS = 50;

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const id = String(params.id ?? "");
  if (!/^\d{1,15}$/.test(id)) throw new Response("Not found", { status: 404 });
  const page_no = pageParam(new URL(request.url));
  const [ledger, pending, earn, live] = await Promise.all([
    adminApiOrLogin<Ledger>(context, request, `/api/admin/users/${id}/ledger`, { page_no, row: ROWS }),
    adminApi<{ items: Adjustment[] }>(context, request, "/api/admin/adjustments", { status: "pending", user_id: id, row: 100 }),
    adminApi<{ pool: PoolHoldingRow[]; miner: MinerHoldingRow[] }>(context, request, `/api/admin/users/${id}/earn`),
    adminApi<{ list: UserSession[] }>(context, request, `/api/admin/users/${id}/sessions`),
  ]);
  if (ledger.code !== 1) throw new Response(ledger.msg, { status: ledger.status === 404 ? 404 : 400 });
  const mine = pending.code === 1 ? pending.data.items : [];
  const holdings = earn.code === 1 ? earn.data : { pool: [], miner: [] };
  return { ...ledger.data, page_no, pending: mine, holdings, sessions: live.code === 1 ? live.data.list : [] };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const form = Object.fromEntries(await request.formData()) as Record<string, string>;
  if (form.intent === "end_sessions") return adminApi(context, request, `/api/admin/users/${String(params.id ?? "")}/sessions/end`, { reason: form.reason ?? "" });
  return adminApi(context, request, "/api/admin/adjustments/new", {
    user_id: String(params.id ?? ""),
    direction: form.direction ?? "",
    amount: form.amount ?? "",
    reason: form.reason ?? "",
  });
}


/** One user: balances from the ledger, their statement, and a four-eyes adjustment proposal. */
export default function AdminUser() {
  const { t, i18n } = useTranslation("admin");
  const { user, balances, items, total, page_no, pending, holdings, exclusion, sessions } = useLoaderData<typeof loader>();
  const lng = i18n.language;
  const words = useLedgerWords();
  const label = (prefix: string, key: string) => (i18n.exists(`admin:${prefix}.${key}`) ? t(`${prefix}.${key}`) : key);
  const cards = [
    ["available", balances.available],
    ["locked_trade", balances.locked_trade],
    ["locked_pool", balances.locked_pool],
    ["locked_withdrawal", balances.locked_withdrawal],
    ["total", balances.total],
  ] as const;
  return (
    <section>
      <nav className="crumbs">
        <Link to="/admin/users">{t("users.title")}</Link> <span aria-hidden="true">/</span> <span>{user.account}</span>
      </nav>
      <div className="page-head">
        <h1>
          {user.account} <span className="muted">#{user.id}</span>
        </h1>
      </div>
      {exclusion ? (
        <p className="card" role="note" data-testid="user-exclusion">
          {t(`users.exclusion_${exclusion.kind}`, { until: formatDateTime(exclusion.until_ms, lng) })}
        </p>
      ) : null}
      <div className="stats balances" data-testid="user-balances">
        {cards.map(([key, value]) => (
          <div className={key === "total" ? "card stat stat-total" : "card stat"} key={key} data-testid={`balance-${key}`}>
            <span className="muted">{t(`ledger_account.${key}`)}</span>
            <strong>{formatUsdtExact(parseAmountExact(value) ?? 0, lng)}</strong>
            <span className="muted">USDT</span>
          </div>
        ))}
      </div>

      <div className="user-tools">
        <ProposeForm userId={user.id} account={user.account} />
        <div className="card">
          <h3 className="card-title">{t("users.pending_title")}</h3>
          {pending.length === 0 ? (
            <p className="muted">{t("users.pending_none")}</p>
          ) : (
            <ul className="plain-list" data-testid="user-pending">
              {pending.map((a) => (
                <li key={a.id}>
                  <StatusPill status={a.status} /> #{a.id} · {t(`adjustments.direction_${a.direction}`)}{" "}
                  <strong>
                    <Signed micro={a.direction === "credit" ? a.amount_micro : -a.amount_micro} />
                  </strong>{" "}
                  USDT
                  <div className="muted">{a.reason}</div>
                </li>
              ))}
            </ul>
          )}
          <Link to="/admin/adjustments">{t("users.pending_open")}</Link>
        </div>
      </div>

      <SessionsCard sessions={sessions} />

      <EarnHoldings pool={holdings.pool} miner={holdings.miner} />

      <h2>{t("users.statement")}</h2>
      <p className="muted">{t("users.statement_note", { count: total })}</p>
      {items.length === 0 ? (
        <Empty />
      ) : (
        <TableWrap>
          <table className="table money-table statement" data-testid="statement-table">
            <thead>
              <tr>
                <th>{t("col.time")}</th>
                <th>{t("users.col_code")}</th>
                <th>{t("users.col_account")}</th>
                <th className="num">{t("col.amount")}</th>
                <th className="num">{t("users.col_balance_after")}</th>
                <th>{t("users.col_counterparty")}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((l, i) => (
                <tr key={`${l.id}:${l.account}`} data-testid="statement-row" data-transfer={l.id} className={i > 0 && items[i - 1].id === l.id ? "same-transfer" : undefined}>
                  <td className="nowrap">{formatDateTime(l.created_at, lng)}</td>
                  <td title={`${l.code} · ${l.ref_type} ${l.ref_id}`}>
                    {words.code(l.code)}
                    <div className="muted">
                      {l.ref_type} {l.ref_id ? `#${l.ref_id}` : ""} · {t("users.transfer_n", { id: l.id })}
                    </div>
                  </td>
                  <td>{label("ledger_account", l.account)}</td>
                  <td className="num strong">
                    <Signed micro={l.amount_micro} />
                  </td>
                  <td className="num">{formatUsdtExact(l.balance_after_micro, lng)}</td>
                  <td>
                    <code className="mono nowrap">{l.counterparty}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager page={page_no} total={total} rows={ROWS} />
    </section>
  );
}

function ProposeForm({ userId, account }: { userId: number; account: string }) {
  const { t } = useTranslation("admin");
  const ui = useUi();
  const form = useRef<HTMLFormElement>(null);
  const { fetcher, busy } = useAction(() => form.current?.reset());
  function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    if (!String(data.get("amount") ?? "").trim() || !String(data.get("reason") ?? "").trim() || !data.get("direction")) {
      ui.toast(t("need_all"));
      return;
    }
    fetcher.submit(data, { method: "post" });
  }
  return (
    <fetcher.Form method="post" ref={form} className="card form admin-form propose" onSubmit={onSubmit} noValidate data-testid="propose-form">
      <h3 className="card-title">{t("users.propose_title")}</h3>
      <p className="notice">{t("users.propose_note", { account, id: userId })}</p>
      <fieldset className="segmented">
        <legend className="field-label">{t("users.direction")}</legend>
        <label>
          <input type="radio" name="direction" value="credit" defaultChecked data-testid="direction-credit" /> {t("adjustments.direction_credit")}
        </label>
        <label>
          <input type="radio" name="direction" value="debit" data-testid="direction-debit" /> {t("adjustments.direction_debit")}
        </label>
      </fieldset>
      <Field label={t("users.amount")} name="amount" inputMode="decimal" placeholder="0.00" hint={t("users.amount_hint")} data-testid="amount-input" required />
      <Field label={t("users.reason")} name="reason" maxLength={500} data-testid="reason-input" required />
      <button type="submit" className="btn btn-primary" disabled={busy} data-testid="propose-adjustment">
        {t("users.propose_submit")}
      </button>
    </fetcher.Form>
  );
}

/**
 * The user's signed-in devices, and ending all of them at once (a stolen phone, a taken-over
 * account): their pages close, their next call is refused. Audited with the reason (decision 119).
 */
function SessionsCard({ sessions }: { sessions: UserSession[] }) {
  const { t, i18n } = useTranslation("admin");
  const ui = useUi();
  const form = useRef<HTMLFormElement>(null);
  const { fetcher, busy } = useAction(() => form.current?.reset());
  async function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    if (!String(data.get("reason") ?? "").trim()) return ui.toast(t("need_reason"));
    if (await ui.confirm(t("users.sessions_end_confirm"))) fetcher.submit(data, { method: "post" });
  }
  return (
    <div className="card" data-testid="user-sessions">
      <h3 className="card-title">{t("users.sessions_title")}</h3>
      {sessions.length === 0 ? (
        <p className="muted">{t("users.sessions_none")}</p>
      ) : (
        <ul className="plain-list">
          {sessions.map((s) => (
            <li key={s.id} data-testid="user-session">
              {s.device || t("users.sessions_unknown_device")} · <span className="mono">{s.ip}</span>
              <div className="muted">{t("users.sessions_last_seen", { date: formatDateTime(s.last_seen_at_ms, i18n.language) })}</div>
            </li>
          ))}
        </ul>
      )}
      <fetcher.Form method="post" ref={form} className="form admin-form" onSubmit={onSubmit} noValidate>
        <input type="hidden" name="intent" value="end_sessions" />
        <Field label={t("users.reason")} name="reason" maxLength={500} data-testid="sessions-reason" required />
        <button type="submit" className="btn btn-danger" disabled={busy} data-testid="end-sessions">
          {t("users.sessions_end")}
        </button>
      </fetcher.Form>
    </div>
  );
}

/** An unknown user id stays inside the console, with the way back to the search. */
export function ErrorBoundary() {
  const { t } = useTranslation("admin");
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  return (
    <section>
      <nav className="crumbs">
        <Link to="/admin/users">{t("users.title")}</Link>
      </nav>
      <p className="notice notice-bad" data-testid="user-error">
        {notFound ? t("users.not_found") : isRouteErrorResponse(error) && typeof error.data === "string" && error.data ? error.data : t("users.load_failed")}
      </p>
      <Link to="/admin/users" className="btn btn-plain btn-sm">
        {t("users.back")}
      </Link>
    </section>
  );
}
