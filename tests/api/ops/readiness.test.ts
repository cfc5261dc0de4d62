/**
 * Readiness (`GET /api/health/ready`, decision 130): 200 on a fresh deployment, and 503 naming
 * the check for each condition made to happen here: a stale feed, overdue orders, a log that
 * does not sequence, no cron run or a failed one, D1 failing, production without a feed. Each
 * answer lists every check with its value and threshold. Its own workerd: it stalls feeds and
 * leaves orders overdue, which other files' readiness would see.
 */
import { runInDurableObject } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { FeedTick } from "../../../durable-objects/quotes/feed";
import type { QuoteHub } from "../../../durable-objects/quotes/quote-hub";
import { createApi } from "../../../worker/api/app";
import { runCron, type CronJob } from "../../../worker/cron";
import type { Env } from "../../../worker/env";
import { readiness, type Check } from "../../../worker/observability/readiness";
import { THRESHOLDS } from "../../../worker/observability/thresholds";
import { hubStub } from "../../../worker/quotes";
import { logSequencer } from "../../../durable-objects/transparency/log-api";
import { call, db, newUser, operatorToken, seed, testEnv } from "../helpers";
import { market, USDT } from "../trades/market-helpers";

const app = createApi();

/** The route as a monitor asks it, under any env. */
async function ready(env: Env = testEnv) {
  const res = await app.request("/api/health/ready", { method: "GET" }, env);
  return { status: res.status, ...((await res.json()) as { code: number; msg: string; data: { ready: boolean; mode: string; failing: string[]; checks: Check[]; error?: string } }) };
}

const check = (checks: Check[], name: string) => checks.find((c) => c.name === name);

beforeAll(async () => {
  await seed();
});

describe("a fresh deployment", () => {
  it("answers 200 with every check, its value and its threshold; the first cron run counts as pending", async () => {
    const r = await ready();
    expect(r.status, JSON.stringify(r.data.checks)).toBe(200);
    expect(r.code).toBe(1);
    expect(r.data.ready).toBe(true);
    expect(r.data.mode).toBe("local");
    const names = r.data.checks.map((c) => c.name);
    for (const name of ["d1", "settlement_backlog", "settlement_oldest", "log_backlog", "log_oldest", "checkpoint_age", "cron"]) expect(names).toContain(name);
    // One feed check per enabled symbol of the seed.
    expect(names.filter((n) => n.startsWith("feed:")).length).toBeGreaterThan(0);
    for (const c of r.data.checks) expect(c.threshold, c.name).not.toBeUndefined();
    expect(check(r.data.checks, "d1")?.value).toBeTypeOf("number");
    expect(check(r.data.checks, "cron")?.reason).toBe("cron_first_run_pending");
    // The cheap liveness answer is untouched.
    const health = await call("/api/health", undefined, { method: "GET" });
    expect(health.status).toBe(200);
    expect(Object.keys(health.data).sort()).toEqual(["mode", "ready", "time_ms"]);
  });
});

describe("each fault answers 503 naming it", () => {
  it("a symbol whose feed stopped", async () => {
    const m = await market({ sort: 60 });
    const hub = hubStub(testEnv, m.symbol) as unknown as DurableObjectStub<QuoteHub>;
    // The hub on an exchange feed that never connects, its one tick a minute old. The feed is
    // switched before the hub is configured: configured on the simulation, it could tick now
    // (on a loaded machine, between two calls), and ticks only go forward.
    await runInDurableObject(hub, (instance) => {
      const o = instance as unknown as { env: Env };
      o.env = { ...o.env, PRICE_FEED: "binance" };
    });
    await hub.ensure({ symbol: m.symbol, feed_symbol: m.feed_symbol, start_price_e8: m.start_price_e8, tick_size_e8: m.tick_size_e8 });
    await runInDurableObject(hub, (instance) => {
      const o = instance as unknown as { prices: { ingest(t: FeedTick): unknown } };
      o.prices.ingest({ symbol: m.symbol, ts_ms: Date.now() - 60_000, price_e8: 100e8, volume_e8: 1e8 });
    });
    const r = await ready();
    expect(r.status).toBe(503);
    expect(r.code).toBe(0);
    expect(r.data.error).toBe("not_ready");
    expect(r.data.failing).toEqual([`feed:${m.symbol}`]);
    expect(r.msg).toContain(`feed:${m.symbol}`);
    const feed = check(r.data.checks, `feed:${m.symbol}`)!;
    expect(feed.value as number).toBeGreaterThanOrEqual(60_000);
    expect(feed.threshold).toBe(THRESHOLDS.feed_age_max_ms);
    // A disabled market is nobody's feed.
    await db.run(sql`UPDATE products SET enabled = 0 WHERE id = ${m.id}`);
    expect((await ready()).status).toBe(200);
  });

  it("production without a usable feed (unready) names the feed", async () => {
    const r = await ready({ ...testEnv, APP_ENV: "production", PRICE_FEED: undefined, PRICE_FEED_URL: undefined });
    expect(r.status).toBe(503);
    expect(r.data.mode).toBe("unready");
    expect(r.data.failing).toContain("feed");
    expect(check(r.data.checks, "feed")).toMatchObject({ ok: false, value: null, reason: "no_feed_configured" });
  });

  it("open orders overdue: too many, and one too late", async () => {
    // A market whose hub never runs (disabled), so nothing settles them behind the test's back.
    const m = await market({ enabled: false, sort: 61 });
    const u = await newUser();
    const now = Date.now();
    const insert = (n: number, late_ms: number) =>
      db.run(sql`
        WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${n})
        INSERT INTO orders (user_id, product_id, symbol, direction, stake_micro, fee_micro, profit_rate_bp, seconds, quote_price_e8, created_at_ms, delivery_at_ms, status, request_key, request_hash, terms_version)
        SELECT ${u.id}, ${m.id}, ${m.symbol}, 'up', ${USDT}, 0, 8000, 60, 100e8, ${now - late_ms - 60_000}, ${now - late_ms}, 'open', 'ready-' || ${late_ms} || '-' || i, 'h', ${m.terms_version} FROM k`);

    // One order ten minutes past delivery: the oldest is too late.
    await insert(1, 10 * 60_000);
    let r = await ready();
    expect(r.status).toBe(503);
    expect(r.data.failing).toEqual(["settlement_oldest"]);
    expect(check(r.data.checks, "settlement_oldest")!.value as number).toBeGreaterThanOrEqual(10 * 60_000);
    expect(check(r.data.checks, "settlement_backlog")).toMatchObject({ ok: true, value: 1 });

    // Past the count, each within the sweep's reach (two minutes late) but too many at once.
    await db.run(sql`UPDATE orders SET status = 'void', void_reason = 'test', settled_at_ms = ${now} WHERE product_id = ${m.id}`);
    await insert(THRESHOLDS.settlement_overdue_max + 1, 2 * 60_000);
    r = await ready();
    expect(r.status).toBe(503);
    expect(r.data.failing).toEqual(["settlement_backlog"]);
    expect(check(r.data.checks, "settlement_backlog")).toMatchObject({ ok: false, value: THRESHOLDS.settlement_overdue_max + 1, threshold: THRESHOLDS.settlement_overdue_max });

    await db.run(sql`UPDATE orders SET status = 'void', void_reason = 'test', settled_at_ms = ${Date.now()} WHERE product_id = ${m.id} AND status = 'open'`);
    expect((await ready()).status).toBe(200);
  });

  it("a log that does not sequence: a leaf waiting too long and no checkpoint covering it", async () => {
    await testEnv.DB.prepare("INSERT INTO log_queue (kind, ref_id, payload, created_at_ms) VALUES ('sim_commit', 'readiness-test', 'readiness test leaf', ?)")
      .bind(Date.now() - 10 * 60_000)
      .run();
    const r = await ready();
    expect(r.status).toBe(503);
    expect(r.data.failing).toEqual(["log_oldest", "checkpoint_age"]);
    expect(check(r.data.checks, "log_backlog")!.value as number).toBeGreaterThan(0);
    expect(check(r.data.checks, "checkpoint_age")!.reason).toBe("no_checkpoint_yet");
    // The sequencer appends it and signs a checkpoint: ready again.
    await logSequencer(testEnv).drain();
    const after = await ready();
    expect(after.status, JSON.stringify(after.data.failing)).toBe(200);
    expect(check(after.data.checks, "log_backlog")!.value).toBe(0);
  });

  it("the cron: none recorded past the first-run grace, a failed run, then a good one", async () => {
    const opts = { now_ms: Date.now(), isolate_started_ms: Date.now() - THRESHOLDS.cron_first_run_grace_ms - 1 };
    let r = await readiness(testEnv, db, opts);
    expect(r.failing).toEqual(["cron"]);
    expect(check(r.checks, "cron")!.reason).toBe("cron_no_run");

    const broken: CronJob = { name: "broken_job", phase: 0, run: async () => Promise.reject(new Error("boom")) };
    await runCron(testEnv, [broken]);
    r = await readiness(testEnv, db, { ...opts, now_ms: Date.now() });
    expect(r.failing).toEqual(["cron"]);
    expect(check(r.checks, "cron")).toMatchObject({ reason: "cron_jobs_failed", jobs: ["broken_job"] });
    // Through the route too (its isolate is young, but a failed run is a failed run).
    const routed = await ready();
    expect(routed.status).toBe(503);
    expect(routed.data.failing).toEqual(["cron"]);

    await runCron(testEnv);
    expect((await readiness(testEnv, db, { ...opts, now_ms: Date.now() })).ready).toBe(true);
    // A run older than the threshold is no run.
    r = await readiness(testEnv, db, { ...opts, now_ms: Date.now() + THRESHOLDS.cron_age_max_ms + 1_000 });
    expect(r.failing).toContain("cron");
    expect(check(r.checks, "cron")!.reason).toBe("cron_no_recent_run");
  });

  it("D1 failing", async () => {
    const down = new Error("D1_ERROR: database unavailable");
    const brokenDb = new Proxy(testEnv.DB, {
      get(target, prop) {
        if (prop === "prepare" || prop === "batch" || prop === "exec") return () => {
          throw down;
        };
        return Reflect.get(target, prop);
      },
    });
    const r = await ready({ ...testEnv, DB: brokenDb });
    expect(r.status).toBe(503);
    expect(r.data.failing).toContain("d1");
    expect(check(r.data.checks, "d1")).toMatchObject({ ok: false, value: null });
    expect(check(r.data.checks, "d1")).toMatchObject({ reason: "query_failed", detail: expect.stringContaining("database unavailable") });
    // What cannot be read is failing, not passing.
    for (const name of ["settlement_backlog", "log_backlog", "cron"]) expect(r.data.failing).toContain(name);
  });
});

describe("the console's operations API", () => {
  it("operators only, read-only: readiness, each symbol's feed and load, settlement lag, cron runs", async () => {
    expect((await call("/api/admin/operations", {})).status).toBe(401);
    const user = await newUser();
    expect((await call("/api/admin/operations", {}, { token: user.token })).status).toBe(401);

    const r = await call("/api/admin/operations", {}, { token: await operatorToken() });
    expect(r.code, r.msg).toBe(1);
    expect(r.data.readiness.checks.map((c: Check) => c.name)).toContain("d1");
    const btc = r.data.symbols.find((s: { symbol: string }) => s.symbol === "BTC/USDT");
    expect(btc).toMatchObject({ error: null, feed: "simulation", sockets: 0, sockets_near_cap: false });
    expect(btc.feed_age_ms).toBeLessThanOrEqual(THRESHOLDS.feed_age_max_ms);
    expect(btc.socket_cap).toBeGreaterThan(0);
    // The orders the overdue test voided were settled minutes after delivery, within the hour.
    const lag = r.data.settlement_lag as { orders: number; max_lag_ms: number }[];
    expect(lag.reduce((n, m) => n + m.orders, 0)).toBeGreaterThanOrEqual(THRESHOLDS.settlement_overdue_max + 2);
    expect(Math.max(...lag.map((m) => m.max_lag_ms))).toBeGreaterThanOrEqual(10 * 60_000);
    // The cron test's runs, newest first, the failed one naming its job.
    const runs = r.data.cron_runs as { outcome: string; failed_jobs: string[] }[];
    expect(runs[0].outcome).toBe("ok");
    expect(runs.some((run) => run.outcome === "failed" && run.failed_jobs.includes("broken_job"))).toBe(true);
  });
});
