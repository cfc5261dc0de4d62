/**
 * The words of readiness (worker/observability/readiness.ts) as codes: each check's name and each
 * reason a check gives. Machines match the codes; the console shows their labels (admin
 * `operations.check.*` and `operations.reason.*`, in every language). No imports: the console's
 * page reads this module in the browser too.
 */

/** Every check's name (a feed check is "feed:<symbol>", or "feed" when there is no feed): each has a label on the console. */
export const CHECK_NAMES = ["d1", "feed", "settlement_backlog", "settlement_oldest", "log_backlog", "log_oldest", "checkpoint_age", "cron"] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

/**
 * Why a check reads as it does, as a code: machines match it, the console shows its label in the
 * reader's language (admin `operations.reason.*`). What only an engineer reads (an error's text)
 * goes in `detail`.
 */
export const CHECK_REASONS = [
  "query_failed",
  "no_feed_configured",
  "symbols_unknown",
  "hub_unreachable",
  "no_tick_yet",
  "feed_exchange",
  "feed_simulation",
  "no_leaves_waiting",
  "no_checkpoint_yet",
  "cron_jobs_failed",
  "cron_first_run_pending",
  "cron_no_recent_run",
  "cron_no_run",
] as const;
export type CheckReason = (typeof CHECK_REASONS)[number];

/** One check as readiness answers it: what was measured against what it may be. */
export type Check = {
  /** A CheckName, or "feed:<symbol>". */
  name: string;
  ok: boolean;
  /** The measured value; null when it could not be measured (see `reason`). */
  value: number | string | null;
  threshold: number | string;
  unit: "ms" | "count" | "state";
  reason?: CheckReason;
  /** An error's own text, for the engineer; never the only explanation (that is `reason`). */
  detail?: string;
  /** The cron jobs that failed in its latest run (with reason "cron_jobs_failed"). */
  jobs?: string[];
};

/** The label-bearing part of a check's name: "feed:BTC/USDT" is a "feed" check. */
export function checkKind(name: string): CheckName {
  const kind = name.split(":")[0] as CheckName;
  return (CHECK_NAMES as readonly string[]).includes(kind) ? kind : "d1";
}
