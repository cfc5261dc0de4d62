/**
 * The minute cron (wrangler.toml `[triggers]`), as a list of named jobs. Each run:
 * - runs every job of a phase at once, then the next phase (the log's jobs come after the
 *   sweeps: they append what the sweeps wrote);
 * - never lets one job's failure stop another, and never swallows one: each failure is logged
 *   (`cron.job_failed`), counted (the `cron` metric's `failures`) and kept in its `cron_runs` row;
 * - writes that row (what each job answered, the overdue orders and log backlog it left, the
 *   latest checkpoint's age) and prunes rows older than a week, in one D1 batch;
 * - answers the run, so the scheduled handler can report it failed to the platform too.
 * Adding a job is one entry in CRON_JOBS (decision 131).
 */
import { lt } from "drizzle-orm";
import { getDb } from "./db/client";
import { cron_runs } from "./db/schema";
import { withInvocationDb } from "./db/limits";
import type { Env } from "./env";
import { sweepEarn } from "./earn-sweep";
import { errorFields, logError, logInfo } from "./observability/log";
import { recordMetric } from "./observability/metrics";
import { logBacklog, settlementBacklog } from "./observability/readiness";
import { THRESHOLDS } from "./observability/thresholds";
import { sweepOverdueOrders } from "./sweep";
import { logSequencer, logWorksAlone } from "../durable-objects/transparency/log-api";
import { pruneIfDue } from "./domain/retention/prune";

export type CronJob = {
  /** snake_case: the name in logs, the metric-free record and the console. */
  name: string;
  /** Jobs of a lower phase all finish (or fail) before any job of a higher one starts. */
  phase: 0 | 1;
  /** `env` is the run's D1 view: D1's per-invocation limits are shared by every job of the run. */
  run: (env: Env) => Promise<unknown>;
};

/**
 * The log's jobs reach the sequencer directly, not through pokeLog (which logs and swallows for
 * the request paths): here a failure must reach the run's record. The rule for tests is the
 * log's own (`logWorksAlone`).
 */
const logJob = (work: (env: Env) => Promise<unknown>) => (env: Env) => (logWorksAlone(env) ? work(env) : Promise.resolve("skipped under tests"));

export const CRON_JOBS: readonly CronJob[] = [
  /** A backstop for hub alarms that did not run: every symbol with overdue open orders settles them. */
  { name: "settlement_sweep", phase: 0, run: (env) => sweepOverdueOrders(env) },
  /** Pays each completed day of pool orders and miner machines (bounded work per run). */
  { name: "earn_sweep", phase: 0, run: (env) => sweepEarn(env) },
  /** The retention policy (worker/domain/retention/policy.ts): once an hour, bounded work per run. */
  { name: "retention_prune", phase: 0, run: (env) => pruneIfDue(env, Date.now()) },
  /** The log appends what the sweeps wrote, and anything a lost poke left in its inbox. */
  { name: "log_poke", phase: 1, run: logJob((env) => logSequencer(env).poke()) },
  /** The daily proof-of-liabilities snapshot (the object takes one a day; asked every minute). */
  { name: "liabilities", phase: 1, run: logJob((env) => logSequencer(env).liabilitiesIfDue()) },
];

export type JobResult = { name: string; ok: boolean; duration_ms: number; result?: unknown; error?: string };
export type CronRun = {
  started_at_ms: number;
  finished_at_ms: number;
  outcome: "ok" | "failed";
  jobs: JobResult[];
  failures: number;
  overdue_orders: number;
  log_backlog: number;
  checkpoint_age_ms: number | null;
};

/** A job's answer as the row keeps it: small JSON (a sweep's list of symbols, counts). */
function kept(result: unknown): unknown {
  if (result === undefined) return null;
  const text = JSON.stringify(result);
  return text.length > 500 ? `${text.slice(0, 500)}…` : result;
}

async function runJob(job: CronJob, env: Env): Promise<JobResult> {
  const started = Date.now();
  try {
    const result = await job.run(env);
    return { name: job.name, ok: true, duration_ms: Date.now() - started, result: kept(result) };
  } catch (err) {
    const { error } = errorFields(err);
    logError("cron.job_failed", { job: job.name, ...errorFields(err) });
    return { name: job.name, ok: false, duration_ms: Date.now() - started, error };
  }
}

/** Runs every job (each phase's at once), records the run, and answers it. */
export async function runCron(rawEnv: Env, jobs: readonly CronJob[] = CRON_JOBS, now = () => Date.now()): Promise<CronRun> {
  // One view for every job: D1's per-invocation limits are shared by everything this run does.
  const env = withInvocationDb(rawEnv);
  const started_at_ms = now();
  const results = new Map<CronJob, JobResult>();
  for (const phase of [0, 1] as const) {
    const these = jobs.filter((j) => j.phase === phase);
    const done = await Promise.all(these.map((j) => runJob(j, env)));
    these.forEach((j, i) => results.set(j, done[i]));
  }
  const ordered = jobs.map((j) => results.get(j)!);

  // What the run left behind. Reading it may fail too (D1 down): that is one more failure.
  const db = getDb(env.DB);
  let figures = { overdue_orders: 0, log_backlog: 0, checkpoint_age_ms: null as number | null };
  try {
    const [settlement, log] = await Promise.all([settlementBacklog(db, now()), logBacklog(db)]);
    figures = { overdue_orders: settlement.overdue, log_backlog: log.waiting, checkpoint_age_ms: log.checkpoint_ms === null ? null : Math.max(0, now() - log.checkpoint_ms) };
  } catch (err) {
    logError("cron.job_failed", { job: "backlog_figures", ...errorFields(err) });
    ordered.push({ name: "backlog_figures", ok: false, duration_ms: 0, error: errorFields(err).error });
  }

  const failures = ordered.filter((r) => !r.ok).length;
  const run: CronRun = { started_at_ms, finished_at_ms: now(), outcome: failures === 0 ? "ok" : "failed", jobs: ordered, failures, ...figures };
  await record(env, run);
  return run;
}

/** The run's row (and the week-old rows pruned), its log line and its metric point. */
async function record(env: Env, run: CronRun): Promise<void> {
  const db = getDb(env.DB);
  try {
    await db.batch([
      db.insert(cron_runs).values({
        started_at_ms: run.started_at_ms,
        finished_at_ms: run.finished_at_ms,
        outcome: run.outcome,
        jobs_json: JSON.stringify(run.jobs),
        failures: run.failures,
        overdue_orders: run.overdue_orders,
        log_backlog: run.log_backlog,
        checkpoint_age_ms: run.checkpoint_age_ms,
      }),
      db.delete(cron_runs).where(lt(cron_runs.started_at_ms, run.started_at_ms - THRESHOLDS.cron_runs_keep_ms)),
    ]);
  } catch (err) {
    // No row: readiness's cron check goes stale, which is the alert for a cron that cannot record.
    logError("cron.record_failed", errorFields(err));
  }
  const fields = { outcome: run.outcome, duration_ms: run.finished_at_ms - run.started_at_ms, failures: run.failures, failed_jobs: run.jobs.filter((j) => !j.ok).map((j) => j.name), overdue_orders: run.overdue_orders, log_backlog: run.log_backlog, checkpoint_age_ms: run.checkpoint_age_ms };
  if (run.failures > 0) logError("cron.run", fields);
  else logInfo("cron.run", fields);
  recordMetric(env.METRICS, "cron", {
    outcome: run.outcome,
    duration_ms: run.finished_at_ms - run.started_at_ms,
    failures: run.failures,
    overdue_orders: run.overdue_orders,
    log_backlog: run.log_backlog,
    checkpoint_age_ms: run.checkpoint_age_ms ?? 0,
  });
}
