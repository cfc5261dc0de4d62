import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useRevalidateEvery } from "../../lib/revalidate";
import { useTranslation } from "react-i18next";
import { BarChart, Meter } from "../../components/admin/bar-chart";
import { TableWrap } from "../../components/admin/money";
import { formatDateTime } from "../../lib/format";
import { checkKind, type Check } from "../../../worker/observability/checks";
import type { Readiness } from "../../../worker/observability/readiness";
export { shouldRevalidate } from "../../lib/revalidate";
import { adminApiOrLogin } from "../../lib/admin.server";

/** The operations API's answer (worker/api/resources/admin-operations.ts). */
type Operations = {
  time_ms: number;
  readiness: Readiness;
  thresholds: {
    feed_age_max_ms: number;
    settlement_oldest_max_ms: number;
    log_backlog_max: number;
  };
  symbols: {
    symbol: string;
    error: string | null;
    feed: string | null;
    feed_age_ms: number | null;
    sockets: number;
    socket_cap: number;
    sockets_near_cap: boolean;
    order_groups: number;
    orders_grouped: number;
    avg_group_write_ms: number | null;
  }[];
  settlement_lag: {
    minute_ms: number;
    orders: number;
    max_lag_ms: number;
    avg_lag_ms: number;
  }[];
  cron_runs: {
    started_at_ms: number;
    duration_ms: number;
    outcome: "ok" | "failed";
    failures: number;
    failed_jobs: string[];
    overdue_orders: number;
    log_backlog: number;
    checkpoint_age_ms: number | null;
  }[];
};

/** The cron chart's width in runs (the API's last hour): bars keep their width as runs come in. */
const CRON_SLOTS = 60;

/** The page asks again this often while it is visible. */
const REFRESH_MS = 5_000;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const res = await adminApiOrLogin<Operations>(context, request, "/api/admin/operations");
  return {
    ops: res.code === 1 ? res.data : null,
    error: res.code === 1 ? "" : res.msg,
  };
}

/** A duration in the reader's language: ms under a second, seconds under two minutes, then minutes. */
function duration(ms: number | null, lng: string): string {
  if (ms === null) return "—";
  if (ms < 1000)
    return new Intl.NumberFormat(lng, {
      style: "unit",
      unit: "millisecond",
      maximumFractionDigits: 0,
    }).format(ms);
  if (ms < 120_000)
    return new Intl.NumberFormat(lng, {
      style: "unit",
      unit: "second",
      maximumFractionDigits: 1,
    }).format(ms / 1000);
  return new Intl.NumberFormat(lng, {
    style: "unit",
    unit: "minute",
    maximumFractionDigits: 1,
  }).format(ms / 60_000);
}

/** "60 minutes ago" and "now" in the reader's language: a time axis's two ends. */
function ago(minutes: number, lng: string): string {
  return new Intl.RelativeTimeFormat(lng, { numeric: "auto" }).format(-minutes, "minute");
}

function checkValue(c: Check, lng: string): string {
  if (c.value === null) return "—";
  if (typeof c.value === "string") return c.value;
  return c.unit === "ms" ? duration(c.value, lng) : c.value.toLocaleString(lng);
}

function checkThreshold(c: Check, lng: string): string {
  if (typeof c.threshold === "string") return c.threshold;
  return c.unit === "ms" ? `≤ ${duration(c.threshold, lng)}` : `≤ ${c.threshold.toLocaleString(lng)}`;
}

type T = ReturnType<typeof useTranslation>["t"];

/** A check's words: "feed:BTC/USDT" reads as the feed check's label and its symbol. */
function checkLabel(t: T, name: string): string {
  const symbol = name.includes(":") ? ` ${name.slice(name.indexOf(":") + 1)}` : "";
  return `${t(`operations.check.${checkKind(name)}`)}${symbol}`;
}

/** A cron job's words (worker/cron.ts); a job this console does not know reads as its name. */
function jobLabel(t: T, job: string): string {
  return t(`operations.job.${job}`, { defaultValue: job });
}

/** Live operations signals: readiness, feeds, settlement lag and the cron's runs, refreshed every 5 s. */
export default function AdminOperations() {
  const { t, i18n } = useTranslation("admin");
  const lng = i18n.language;
  const { ops, error } = useLoaderData<typeof loader>();
  useRevalidateEvery(REFRESH_MS);

  if (!ops) return <p className="notice notice-bad">{error}</p>;
  const r = ops.readiness;
  const runs = [...ops.cron_runs].reverse();
  return (
    <section className="operations">
      <div className="page-head">
        <h1>{t("operations.title")}</h1>
      </div>
      <p className="muted">{t("operations.note")}</p>
      <div className={r.ready ? "ledger-banner ok" : "ledger-banner bad"} role="status" data-testid="ops-readiness">
        <strong>{r.ready ? t("operations.ready") : t("operations.not_ready")}</strong>
        {!r.ready ? <span data-testid="ops-failing">{r.failing.map((name) => checkLabel(t, name)).join(", ")}</span> : null}
        <span className="muted">{t("operations.updated", { time: formatDateTime(ops.time_ms, lng) })}</span>
      </div>

      <h2>{t("operations.checks_title")}</h2>
      <TableWrap>
        <table className="table ops-table" data-testid="ops-checks">
          <thead>
            <tr>
              <th>{t("operations.col_check")}</th>
              <th className="num">{t("operations.col_value")}</th>
              <th className="num">{t("operations.col_threshold")}</th>
              <th>{t("operations.col_result")}</th>
            </tr>
          </thead>
          <tbody>
            {r.checks.map((c) => (
              <tr key={c.name} data-check={c.name} data-ok={c.ok ? "1" : "0"}>
                <td>
                  {checkLabel(t, c.name)}
                  <div className="sub-line">
                    <code className="mono">{c.name}</code>
                  </div>
                  {c.reason ? (
                    <div className="sub-line" data-reason={c.reason}>
                      {t(`operations.reason.${c.reason}`)}
                      {c.jobs?.length ? `: ${c.jobs.map((job) => jobLabel(t, job)).join(", ")}` : null}
                    </div>
                  ) : null}
                  {c.detail ? (
                    <div className="sub-line">
                      <code className="mono">{c.detail}</code>
                    </div>
                  ) : null}
                </td>
                <td className="num">
                  {checkValue(c, lng)}
                  {typeof c.value === "number" && typeof c.threshold === "number" ? <Meter value={c.value} threshold={c.threshold} /> : null}
                </td>
                <td className="num">{checkThreshold(c, lng)}</td>
                <td>
                  <span className={c.ok ? "pill pill-approved" : "pill pill-rejected"}>{c.ok ? t("operations.pass") : t("operations.fail")}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>

      <h2>{t("operations.feeds_title")}</h2>
      <TableWrap>
        <table className="table" data-testid="ops-symbols">
          <thead>
            <tr>
              <th>{t("operations.col_symbol")}</th>
              <th className="num">{t("operations.col_feed_age")}</th>
              <th className="num">{t("operations.col_sockets")}</th>
              <th className="num">{t("operations.col_groups")}</th>
              <th className="num">{t("operations.col_write")}</th>
            </tr>
          </thead>
          <tbody>
            {ops.symbols.map((s) =>
              s.error !== null ? (
                <tr key={s.symbol} data-symbol={s.symbol}>
                  <td>{s.symbol}</td>
                  <td colSpan={4} className="amount-neg">
                    {t("operations.reason.hub_unreachable")}
                    <div className="sub-line">
                      <code className="mono">{s.error}</code>
                    </div>
                  </td>
                </tr>
              ) : (
                <tr key={s.symbol} data-symbol={s.symbol}>
                  <td>
                    {s.symbol}
                    {s.feed === "exchange" || s.feed === "simulation" ? <div className="sub-line">{t(`operations.reason.feed_${s.feed}`)}</div> : null}
                  </td>
                  <td className={s.feed_age_ms !== null && s.feed_age_ms <= ops.thresholds.feed_age_max_ms ? "num" : "num amount-neg"} data-testid="ops-feed-age">
                    {duration(s.feed_age_ms, lng)}
                    {s.feed_age_ms !== null ? <Meter value={s.feed_age_ms} threshold={ops.thresholds.feed_age_max_ms} /> : null}
                  </td>
                  <td className={s.sockets_near_cap ? "num amount-neg" : "num"}>
                    {s.sockets.toLocaleString(lng)} / {s.socket_cap.toLocaleString(lng)}
                  </td>
                  <td className="num">
                    {s.order_groups.toLocaleString(lng)}
                    <div className="sub-line">
                      {t("operations.orders_in_groups", {
                        count: s.orders_grouped,
                      })}
                    </div>
                  </td>
                  <td className="num">{duration(s.avg_group_write_ms, lng)}</td>
                </tr>
              )
            )}
          </tbody>
        </table>
      </TableWrap>

      <h2>{t("operations.lag_title")}</h2>
      <p className="muted">{t("operations.lag_note")}</p>
      {ops.settlement_lag.length === 0 ? (
        <p className="notice">{t("operations.none")}</p>
      ) : (
        <>
          <div className="stats">
            <Stat label={t("operations.lag_orders")} value={ops.settlement_lag.reduce((n, m) => n + m.orders, 0).toLocaleString(lng)} />
            <Stat label={t("operations.lag_max")} value={duration(Math.max(...ops.settlement_lag.map((m) => m.max_lag_ms)), lng)} />
            <Stat
              label={t("operations.lag_avg")}
              value={duration(
                Math.round(
                  ops.settlement_lag.reduce((n, m) => n + m.avg_lag_ms * m.orders, 0) /
                    Math.max(
                      1,
                      ops.settlement_lag.reduce((n, m) => n + m.orders, 0)
                    )
                ),
                lng
              )}
            />
          </div>
          <BarChart
            label={t("operations.lag_title")}
            threshold={ops.thresholds.settlement_oldest_max_ms}
            bars={lagMinutes(ops.settlement_lag, ops.time_ms).map((m) => ({
              key: m.minute_ms,
              value: m.max_lag_ms,
              empty: m.orders === 0,
              title: `${formatDateTime(m.minute_ms, lng)}: ${duration(m.max_lag_ms, lng)} (${m.orders})`,
            }))}
            top={duration(Math.max(ops.thresholds.settlement_oldest_max_ms, ...ops.settlement_lag.map((m) => m.max_lag_ms)), lng)}
            from={ago(60, lng)}
            to={ago(0, lng)}
            testId="ops-lag-chart"
          />
        </>
      )}

      <h2>{t("operations.cron_title")}</h2>
      {runs.length === 0 ? (
        <p className="notice" data-testid="ops-no-runs">
          {t("operations.none")}
        </p>
      ) : (
        <>
          <p className="muted">{t("operations.chart_cron")}</p>
          <BarChart
            label={t("operations.chart_cron")}
            bars={[
              ...Array.from({ length: Math.max(0, CRON_SLOTS - runs.length) }, (_, k) => ({ key: `pad${k}`, value: 0, title: "", empty: true })),
              ...runs.map((run) => ({
                key: run.started_at_ms,
                value: run.duration_ms,
                bad: run.outcome === "failed",
                title: `${formatDateTime(run.started_at_ms, lng)}: ${duration(run.duration_ms, lng)}`,
              })),
            ]}
            top={duration(Math.max(...runs.map((run) => run.duration_ms)), lng)}
            from={ago(CRON_SLOTS, lng)}
            to={ago(0, lng)}
            height={70}
            testId="ops-cron-chart"
          />
          <TableWrap>
            <table className="table" data-testid="ops-cron-runs">
              <thead>
                <tr>
                  <th>{t("operations.col_started")}</th>
                  <th>{t("operations.col_outcome")}</th>
                  <th className="num">{t("operations.col_duration")}</th>
                  <th className="num">{t("operations.col_overdue")}</th>
                  <th className="num">{t("operations.col_backlog")}</th>
                  <th className="num">{t("operations.col_checkpoint")}</th>
                </tr>
              </thead>
              <tbody>
                {ops.cron_runs.slice(0, 10).map((run) => (
                  <tr key={run.started_at_ms} data-outcome={run.outcome}>
                    <td>{formatDateTime(run.started_at_ms, lng)}</td>
                    <td>
                      <span className={run.outcome === "ok" ? "pill pill-approved" : "pill pill-rejected"}>{run.outcome === "ok" ? t("operations.outcome_ok") : t("operations.outcome_failed")}</span>
                      {run.failed_jobs.length > 0 ? <div className="sub-line">{run.failed_jobs.map((job) => jobLabel(t, job)).join(", ")}</div> : null}
                    </td>
                    <td className="num">{duration(run.duration_ms, lng)}</td>
                    <td className="num">{run.overdue_orders.toLocaleString(lng)}</td>
                    <td className="num">{run.log_backlog.toLocaleString(lng)}</td>
                    <td className="num">{duration(run.checkpoint_age_ms, lng)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </>
      )}
    </section>
  );
}

/** The last hour, a bar per minute (minutes without settled orders are empty bars), oldest first. */
function lagMinutes(rows: Operations["settlement_lag"], now_ms: number): Operations["settlement_lag"] {
  const byMinute = new Map(rows.map((m) => [m.minute_ms, m]));
  const last = Math.floor(now_ms / 60_000) * 60_000;
  return Array.from({ length: 60 }, (_, i) => {
    const minute_ms = last - (59 - i) * 60_000;
    return (
      byMinute.get(minute_ms) ?? {
        minute_ms,
        orders: 0,
        max_lag_ms: 0,
        avg_lag_ms: 0,
      }
    );
  });
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="card stat">
      <span className="muted">{label}</span>
      <strong>{value}</strong>
    </div>
  );
}
