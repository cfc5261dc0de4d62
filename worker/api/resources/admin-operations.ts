/**
 * `/api/admin/operations`: the console's operations page (read-only, any operator). The live
 * signals from the app's own state, the same the metrics carry (worker/observability/metrics.ts)
 * but readable without the Analytics Engine SQL API: readiness with every check, each enabled
 * symbol's feed age, quote sockets and order groups (from its hub), settlement lag per minute of
 * the last hour (from D1's orders) and the cron's recent runs (from `cron_runs`).
 */
import { desc, gte, sql } from "drizzle-orm";
import { Hono } from "hono";
import { cron_runs } from "../../db/schema";
import { requireOperator } from "../middleware/auth";
import { hubsHealth, readiness, timedProducts } from "../../observability/readiness";
import { socketsNearCap, THRESHOLDS } from "../../observability/thresholds";
import { ok } from "../envelope";
import type { AppEnv } from "../types";
import { isolateStartedMs } from "../isolate";

const HOUR_MS = 3_600_000;
/** The runs the page charts: the last hour's (one a minute). */
const CRON_RUNS_SHOWN = 60;

export const adminOperationsApi = new Hono<AppEnv>().use("*", requireOperator).on(["GET", "POST"], "/operations", async (c) => {
  const db = c.get("db");
  const now_ms = Date.now();
  const [ready, { products }, lag, runs] = await Promise.all([
    readiness(c.env, db, { now_ms, isolate_started_ms: isolateStartedMs() }),
    timedProducts(db),
    // Settled orders delivered in the last hour, per minute of delivery (orders_due_idx serves the range).
    db.all<{ minute_ms: number; orders: number; max_lag_ms: number; avg_lag_ms: number }>(sql`
      SELECT (delivery_at_ms / 60000) * 60000 AS minute_ms, COUNT(*) AS orders,
             MAX(settled_at_ms - delivery_at_ms) AS max_lag_ms, CAST(AVG(settled_at_ms - delivery_at_ms) AS INTEGER) AS avg_lag_ms
      FROM orders
      WHERE status IN ('won', 'lost', 'tie', 'void') AND delivery_at_ms >= ${now_ms - HOUR_MS} AND settled_at_ms IS NOT NULL
      GROUP BY minute_ms ORDER BY minute_ms`),
    db.select().from(cron_runs).where(gte(cron_runs.started_at_ms, now_ms - THRESHOLDS.cron_runs_keep_ms)).orderBy(desc(cron_runs.started_at_ms)).limit(CRON_RUNS_SHOWN),
  ]);
  const hubs = await hubsHealth(c.env, products);
  return ok(c, {
    time_ms: now_ms,
    readiness: ready,
    thresholds: THRESHOLDS,
    symbols: hubs.map(({ symbol, health, error }) => ({
      symbol,
      /** Why the hub could not be asked (null: it answered). */
      error: health ? null : (error ?? "no answer"),
      feed: health?.feed ?? null,
      feed_age_ms: health?.latest_tick_ms == null ? null : Math.max(0, now_ms - health.latest_tick_ms),
      sockets: health?.sockets ?? 0,
      socket_cap: health?.socket_cap ?? 0,
      sockets_near_cap: health ? health.sockets >= socketsNearCap(health.socket_cap) : false,
      order_groups: health?.order_groups ?? 0,
      orders_grouped: health?.orders_grouped ?? 0,
      avg_group_write_ms: !health || health.order_groups === 0 ? null : Math.round(health.order_write_ms / health.order_groups),
    })),
    settlement_lag: lag,
    cron_runs: runs.map((r) => ({
      started_at_ms: r.started_at_ms,
      duration_ms: r.finished_at_ms - r.started_at_ms,
      outcome: r.outcome,
      failures: r.failures,
      failed_jobs: (JSON.parse(r.jobs_json) as { name: string; ok: boolean }[]).filter((j) => !j.ok).map((j) => j.name),
      overdue_orders: r.overdue_orders,
      log_backlog: r.log_backlog,
      checkpoint_age_ms: r.checkpoint_age_ms,
    })),
  });
});
