/**
 * Readiness (`GET /api/health/ready`, decision 130): is this deployment doing its work, not only
 * answering? Each check reads the app's own state (D1, each symbol's QuoteHub, the log's inbox,
 * the cron's record) and is judged by its threshold in thresholds.ts. The cheap `/api/health`
 * stays a liveness answer that touches nothing.
 *
 * The backlog figures are read here once and used three ways: readiness, the cron's row
 * (worker/cron.ts) and the console's operations page.
 */
import { desc, sql } from "drizzle-orm";
import type { HubHealth } from "../../durable-objects/quotes/hub-api";
import type { Db } from "../db/client";
import { cron_runs } from "../db/schema";
import { listProducts } from "../domain/trades/products";
import type { Env } from "../env";
import { feedKind, modeOf, type Mode } from "../mode";
import { hubFor } from "../quotes";
import { type Check, type CheckReason } from "./checks";
import { THRESHOLDS } from "./thresholds";

export type { Check, CheckReason } from "./checks";

export type Readiness = { ready: boolean; mode: Mode; time_ms: number; failing: string[]; checks: Check[] };

/** Open orders past their sweep grace: how many, and when the oldest was due. */
export async function settlementBacklog(db: Db, now_ms: number): Promise<{ overdue: number; oldest_delivery_ms: number | null }> {
  const [row] = await db.all<{ n: number; oldest: number | null }>(
    sql`SELECT COUNT(*) AS n, MIN(delivery_at_ms) AS oldest FROM orders WHERE status = 'open' AND delivery_at_ms <= ${now_ms - THRESHOLDS.settlement_grace_ms}`,
  );
  return { overdue: row?.n ?? 0, oldest_delivery_ms: row?.oldest ?? null };
}

/**
 * The log's inbox rows no leaf holds yet (the sequencer's cursor is the largest `queue_seq` it
 * appended, as in worker/domain/transparency/sequencer.ts), the oldest one's time, and the
 * latest checkpoint's.
 */
export async function logBacklog(db: Db): Promise<{ waiting: number; oldest_ms: number | null; checkpoint_ms: number | null }> {
  const [[q], [cp]] = await Promise.all([
    db.all<{ n: number; oldest: number | null }>(
      sql`SELECT COUNT(*) AS n, MIN(created_at_ms) AS oldest FROM log_queue WHERE seq > (SELECT COALESCE(MAX(queue_seq), 0) FROM log_leaves)`,
    ),
    db.all<{ created_at_ms: number }>(sql`SELECT created_at_ms FROM log_checkpoints ORDER BY tree_size DESC LIMIT 1`),
  ]);
  return { waiting: q?.n ?? 0, oldest_ms: q?.oldest ?? null, checkpoint_ms: cp?.created_at_ms ?? null };
}

export type CronRunRow = typeof cron_runs.$inferSelect;

export async function latestCronRun(db: Db): Promise<CronRunRow | null> {
  const [row] = await db.select().from(cron_runs).orderBy(desc(cron_runs.started_at_ms)).limit(1);
  return row ?? null;
}

/** A hub that does not answer within this is reported as failing, not waited for. */
const HUB_TIMEOUT_MS = 5_000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms))]);
}

type HubProduct = Awaited<ReturnType<typeof listProducts>>[number];

/** Each given symbol's hub health (started if it was not: readiness wakes an idle hub). */
export function hubsHealth(env: Env, products: HubProduct[]): Promise<{ symbol: string; health: HubHealth | null; error?: string }[]> {
  return Promise.all(
    products.map(async (p) => {
      try {
        return { symbol: p.symbol, health: await withTimeout(hubFor(env, p).then((hub) => hub.health()), HUB_TIMEOUT_MS) };
      } catch (err) {
        return { symbol: p.symbol, health: null, error: errorText(err) };
      }
    }),
  );
}

/** The enabled products, timed: the "real query" of the D1 check. */
export async function timedProducts(db: Db): Promise<{ products: HubProduct[]; ms: number }> {
  const started = Date.now();
  const products = await listProducts(db, { only_enabled: true });
  return { products, ms: Date.now() - started };
}

const failed = (name: string, threshold: number | string, unit: Check["unit"], reason: CheckReason, detail?: string): Check => ({
  name,
  ok: false,
  value: null,
  threshold,
  unit,
  reason,
  ...(detail ? { detail } : {}),
});
const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 200);

/**
 * Every check, judged. `isolate_started_ms` is when this Worker isolate started: a younger one
 * than the cron's first-run grace does not yet expect a cron run (a fresh deployment or a fresh
 * `npm start`; decision 130).
 */
export async function readiness(env: Env, db: Db, opts: { now_ms: number; isolate_started_ms: number }): Promise<Readiness> {
  const { now_ms } = opts;
  const T = THRESHOLDS;
  const [d1, settlement, log, cron] = await Promise.allSettled([
    // The real query: the enabled products (every feed check needs them anyway).
    timedProducts(db),
    settlementBacklog(db, now_ms),
    logBacklog(db),
    latestCronRun(db),
  ]);
  const checks: Check[] = [];

  // D1: the products query answered, and fast.
  if (d1.status === "fulfilled") {
    checks.push({ name: "d1", ok: d1.value.ms <= T.d1_latency_max_ms, value: d1.value.ms, threshold: T.d1_latency_max_ms, unit: "ms" });
  } else {
    checks.push(failed("d1", T.d1_latency_max_ms, "ms", "query_failed", errorText(d1.reason)));
  }

  // Feed: production without a usable feed has none at all; otherwise each enabled symbol's latest tick.
  if (feedKind(env) === "none") {
    checks.push({ name: "feed", ok: false, value: null, threshold: T.feed_age_max_ms, unit: "ms", reason: "no_feed_configured", detail: "PRICE_FEED, PRICE_FEED_URL" });
  } else if (d1.status === "fulfilled") {
    for (const { symbol, health, error } of await hubsHealth(env, d1.value.products)) {
      const name = `feed:${symbol}`;
      if (!health) checks.push(failed(name, T.feed_age_max_ms, "ms", "hub_unreachable", error));
      else if (health.latest_tick_ms === null) checks.push(failed(name, T.feed_age_max_ms, "ms", "no_tick_yet"));
      else {
        const age = Math.max(0, now_ms - health.latest_tick_ms);
        const reason = health.feed === "exchange" ? "feed_exchange" : health.feed === "simulation" ? "feed_simulation" : undefined;
        checks.push({ name, ok: age <= T.feed_age_max_ms, value: age, threshold: T.feed_age_max_ms, unit: "ms", ...(reason ? { reason } : {}) });
      }
    }
  } else {
    checks.push(failed("feed", T.feed_age_max_ms, "ms", "symbols_unknown"));
  }

  if (settlement.status === "fulfilled") {
    const { overdue, oldest_delivery_ms } = settlement.value;
    const oldest = oldest_delivery_ms === null ? 0 : now_ms - oldest_delivery_ms;
    checks.push({ name: "settlement_backlog", ok: overdue <= T.settlement_overdue_max, value: overdue, threshold: T.settlement_overdue_max, unit: "count" });
    checks.push({ name: "settlement_oldest", ok: oldest <= T.settlement_oldest_max_ms, value: oldest, threshold: T.settlement_oldest_max_ms, unit: "ms" });
  } else {
    checks.push(failed("settlement_backlog", T.settlement_overdue_max, "count", "query_failed", errorText(settlement.reason)));
    checks.push(failed("settlement_oldest", T.settlement_oldest_max_ms, "ms", "query_failed", errorText(settlement.reason)));
  }

  if (log.status === "fulfilled") {
    const { waiting, oldest_ms, checkpoint_ms } = log.value;
    const oldest = oldest_ms === null ? 0 : Math.max(0, now_ms - oldest_ms);
    checks.push({ name: "log_backlog", ok: waiting <= T.log_backlog_max, value: waiting, threshold: T.log_backlog_max, unit: "count" });
    checks.push({ name: "log_oldest", ok: oldest <= T.log_oldest_max_ms, value: oldest, threshold: T.log_oldest_max_ms, unit: "ms" });
    // An idle log signs nothing: its checkpoint's age counts only while leaves wait for one.
    const age = checkpoint_ms === null ? null : Math.max(0, now_ms - checkpoint_ms);
    const stuck = waiting > 0 && (age === null ? oldest > T.checkpoint_age_max_ms : age > T.checkpoint_age_max_ms);
    const reason = waiting === 0 ? "no_leaves_waiting" : age === null ? "no_checkpoint_yet" : undefined;
    checks.push({ name: "checkpoint_age", ok: !stuck, value: age, threshold: T.checkpoint_age_max_ms, unit: "ms", ...(reason ? { reason } : {}) });
  } else {
    for (const [name, threshold, unit] of [["log_backlog", T.log_backlog_max, "count"], ["log_oldest", T.log_oldest_max_ms, "ms"], ["checkpoint_age", T.checkpoint_age_max_ms, "ms"]] as const) {
      checks.push(failed(name, threshold, unit, "query_failed", errorText(log.reason)));
    }
  }

  checks.push(cronCheck(cron, opts));

  const failing = checks.filter((c) => !c.ok).map((c) => c.name);
  return { ready: failing.length === 0, mode: modeOf(env), time_ms: now_ms, failing, checks };
}

/** The latest cron run: finished recently and without a failed job (or not expected yet). */
function cronCheck(cron: PromiseSettledResult<CronRunRow | null>, { now_ms, isolate_started_ms }: { now_ms: number; isolate_started_ms: number }): Check {
  const T = THRESHOLDS;
  if (cron.status === "rejected") return failed("cron", T.cron_age_max_ms, "ms", "query_failed", errorText(cron.reason));
  const run = cron.value;
  const age = run ? Math.max(0, now_ms - run.finished_at_ms) : null;
  if (run && age !== null && age <= T.cron_age_max_ms) {
    if (run.outcome === "ok") return { name: "cron", ok: true, value: age, threshold: T.cron_age_max_ms, unit: "ms" };
    const jobs = (JSON.parse(run.jobs_json) as { name: string; ok: boolean }[]).filter((j) => !j.ok).map((j) => j.name);
    return { name: "cron", ok: false, value: age, threshold: T.cron_age_max_ms, unit: "ms", reason: "cron_jobs_failed", jobs };
  }
  // None recent. A young isolate is a fresh deployment or start whose first run is still due.
  if (now_ms - isolate_started_ms < T.cron_first_run_grace_ms) return { name: "cron", ok: true, value: age, threshold: T.cron_age_max_ms, unit: "ms", reason: "cron_first_run_pending" };
  return { name: "cron", ok: false, value: age, threshold: T.cron_age_max_ms, unit: "ms", reason: run ? "cron_no_recent_run" : "cron_no_run" };
}
