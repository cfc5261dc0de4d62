import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One row per run of the minute cron (worker/cron.ts): when it ran, how it went, what each job
 * answered or how it failed, and what it left behind (open orders past their sweep grace, log
 * leaves not yet sequenced, the latest checkpoint's age). Readiness reads the latest row; the
 * console's operations page charts the last hour. Rows older than CRON_RUNS_KEEP_MS are pruned
 * by the run that writes a new one.
 */
export const cron_runs = sqliteTable(
  "cron_runs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    started_at_ms: integer("started_at_ms").notNull(),
    finished_at_ms: integer("finished_at_ms").notNull(),
    /** "ok": every job finished; "failed": at least one threw (its error is in `jobs_json`). */
    outcome: text("outcome", { enum: ["ok", "failed"] }).notNull(),
    /** [{name, ok, duration_ms, result | error}] in the jobs' list order. */
    jobs_json: text("jobs_json").notNull(),
    failures: integer("failures").notNull(),
    overdue_orders: integer("overdue_orders").notNull(),
    log_backlog: integer("log_backlog").notNull(),
    /** Null: no checkpoint signed yet (or the figures could not be read: see `jobs_json`). */
    checkpoint_age_ms: integer("checkpoint_age_ms"),
  },
  (t) => [index("cron_runs_started_idx").on(t.started_at_ms)],
);
