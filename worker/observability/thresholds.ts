/**
 * Every threshold an operator's signals are judged by, in one place: readiness
 * (`GET /api/health/ready`, worker/observability/readiness.ts), the cron's record (worker/cron.ts),
 * the console's operations page, and the alerts below with their runbooks (docs/operations.md).
 * Change a number here and every one of them moves with it (decision 130).
 */
import { MAX_STALENESS_MS } from "../domain/trades/settlement";
import { SWEEP_GRACE_MS } from "../sweep";

const MINUTE_MS = 60_000;

export const THRESHOLDS = {
  /**
   * A symbol's latest tick may be this old. Past settlement's own staleness (10 s, a delivery
   * without a tick that recent is void) plus the upstream's silent-then-reconnect time: a
   * feed this old is voiding orders, not hiccuping.
   */
  feed_age_max_ms: MAX_STALENESS_MS + 5_000,
  /** An open order is overdue once it is this far past delivery: the cron sweep's own grace. */
  settlement_grace_ms: SWEEP_GRACE_MS,
  /** Overdue open orders readiness tolerates (a burst the hub is still draining). */
  settlement_overdue_max: 50,
  /** The oldest overdue order may be this late: the sweep runs every minute, so two missed sweeps. */
  settlement_oldest_max_ms: 3 * MINUTE_MS,
  /** Log inbox rows not yet sequenced that readiness tolerates (one busy second is a few hundred). */
  log_backlog_max: 5_000,
  /**
   * The oldest unsequenced inbox row may wait this long. The sequencer runs within ~100 ms of a
   * poke and the cron pokes every minute: minutes of waiting means it is not appending.
   */
  log_oldest_max_ms: 2 * MINUTE_MS,
  /**
   * With leaves waiting, the latest checkpoint may be this old. An idle log signs nothing, so an
   * old checkpoint alone is no fault: only one that does not move while leaves wait is.
   */
  checkpoint_age_max_ms: 5 * MINUTE_MS,
  /** The latest cron run must have finished this recently (it runs every minute). */
  cron_age_max_ms: 3 * MINUTE_MS,
  /**
   * A Worker isolate younger than this does not yet expect a cron run: on a fresh deployment or a
   * fresh `npm start` the first run is up to a minute away (decision 130).
   */
  cron_first_run_grace_ms: 2 * MINUTE_MS,
  /** One D1 round trip (`SELECT`) slower than this is a failing database. */
  d1_latency_max_ms: 1_000,
  /** Quote sockets on one hub past this share of its cap: the next surge is refused (decision 088). */
  sockets_near_cap_ratio: 0.8,
  /** Of the requests, at most this share may answer 5xx over five minutes. */
  requests_5xx_max_ratio: 0.01,
  /** Cron rows are kept this long (the operations page charts the last hour). */
  cron_runs_keep_ms: 7 * 24 * 60 * MINUTE_MS,
} as const;

/** The socket count past which a hub is near its cap (quoteSocketCap in durable-objects/quotes/sockets.ts: 30,000, lower in tests). */
export function socketsNearCap(cap: number): number {
  return Math.floor(cap * THRESHOLDS.sockets_near_cap_ratio);
}

/**
 * The alerts, defined once: each names the readiness check or the metric (with its query in
 * docs/ops/metrics.sql) that raises it and its runbook section in docs/operations.md
 * (tests/unit/operations-alerts.test.ts holds the three together).
 */
export type Alert = {
  id: string;
  title: string;
  /** The readiness check that fails with it (names as in readiness.ts; "feed" stands for every `feed:<symbol>`). */
  readiness?: ReadinessCheckName;
  /** The metric kind (worker/observability/metrics.ts) and the docs/ops/metrics.sql query an operator runs. */
  metric?: { kind: "request" | "order_group" | "settlement" | "feed" | "cron"; query: string };
  threshold: string;
  /** The section's anchor in docs/operations.md. */
  runbook: string;
};

export const READINESS_CHECKS = ["d1", "feed", "settlement_backlog", "settlement_oldest", "log_backlog", "log_oldest", "checkpoint_age", "cron"] as const;
export type ReadinessCheckName = (typeof READINESS_CHECKS)[number];

export const ALERTS: readonly Alert[] = [
  { id: "feed_stale", title: "Feed stale", readiness: "feed", metric: { kind: "feed", query: "feed" }, threshold: `latest tick older than ${THRESHOLDS.feed_age_max_ms / 1000} s`, runbook: "alert-feed-stale" },
  {
    id: "settlement_backlog",
    title: "Settlement backlog",
    readiness: "settlement_oldest",
    metric: { kind: "settlement", query: "settlement_lag" },
    threshold: `more than ${THRESHOLDS.settlement_overdue_max} open orders overdue, or one overdue by ${THRESHOLDS.settlement_oldest_max_ms / 60_000} min`,
    runbook: "alert-settlement-backlog",
  },
  {
    id: "log_lag",
    title: "Transparency log lag",
    readiness: "log_oldest",
    metric: { kind: "cron", query: "cron" },
    threshold: `a leaf waiting ${THRESHOLDS.log_oldest_max_ms / 60_000} min, ${THRESHOLDS.log_backlog_max} waiting, or no checkpoint for ${THRESHOLDS.checkpoint_age_max_ms / 60_000} min while leaves wait`,
    runbook: "alert-log-lag",
  },
  { id: "requests_5xx", title: "5xx rate", metric: { kind: "request", query: "error_rate" }, threshold: `more than ${THRESHOLDS.requests_5xx_max_ratio * 100}% of requests over 5 min`, runbook: "alert-5xx-rate" },
  { id: "d1_latency", title: "D1 latency", readiness: "d1", metric: { kind: "request", query: "latency" }, threshold: `a D1 query slower than ${THRESHOLDS.d1_latency_max_ms} ms, or failing`, runbook: "alert-d1-latency" },
  {
    id: "sockets_near_cap",
    title: "Sockets near the cap",
    metric: { kind: "feed", query: "feed" },
    threshold: `a hub holding more than ${THRESHOLDS.sockets_near_cap_ratio * 100}% of its quote-socket cap (30,000)`,
    runbook: "alert-sockets-near-the-cap",
  },
  {
    id: "cron_stale",
    title: "Cron not running or failing",
    readiness: "cron",
    metric: { kind: "cron", query: "cron" },
    threshold: `no finished run for ${THRESHOLDS.cron_age_max_ms / 60_000} min, or the latest failed`,
    runbook: "alert-cron-not-running-or-failing",
  },
];
