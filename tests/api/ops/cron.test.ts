/**
 * The cron keeps a record (decision 131): each run writes a `cron_runs` row with every job's
 * result; a failing job is recorded, logged and counted, and never stops the others; old rows
 * are pruned. Its own workerd: it reads and prunes the whole table.
 */
import { createScheduledController } from "cloudflare:test";
import { desc, sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import worker from "../../../worker/index";
import { CRON_JOBS, runCron, type CronJob } from "../../../worker/cron";
import { cron_runs } from "../../../worker/db/schema";
import { captureLogs, type LogFields, type LogLevel } from "../../../worker/observability/log";
import { recordingDataset } from "../../../worker/observability/metrics";
import { THRESHOLDS } from "../../../worker/observability/thresholds";
import { db, seed, testEnv } from "../helpers";

const latestRow = async () => (await db.select().from(cron_runs).orderBy(desc(cron_runs.id)).limit(1))[0];

let restore: (() => void) | null = null;
afterEach(() => {
  restore?.();
  restore = null;
});

describe("the cron's record", () => {
  it("lists its jobs by name, one entry each", () => {
    expect(CRON_JOBS.map((j) => j.name)).toEqual(["settlement_sweep", "earn_sweep", "retention_prune", "log_poke", "liabilities"]);
    expect(new Set(CRON_JOBS.map((j) => j.name)).size).toBe(CRON_JOBS.length);
  });

  it("the scheduled handler runs every job and writes one row for the run", async () => {
    await seed();
    const before = (await db.select({ n: sql<number>`count(*)` }).from(cron_runs))[0].n;
    await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: Date.now() }) as never, testEnv as never);
    const rows = await db.select().from(cron_runs);
    expect(rows.length).toBe(before + 1);
    const row = await latestRow();
    expect(row.outcome).toBe("ok");
    expect(row.failures).toBe(0);
    expect(row.finished_at_ms).toBeGreaterThanOrEqual(row.started_at_ms);
    const jobs = JSON.parse(row.jobs_json) as { name: string; ok: boolean }[];
    expect(jobs.map((j) => j.name)).toEqual(CRON_JOBS.map((j) => j.name));
    expect(jobs.every((j) => j.ok)).toBe(true);
  });

  it("a failing job is recorded, logged and counted, and every other job still runs", async () => {
    const lines: { level: LogLevel; line: LogFields }[] = [];
    restore = captureLogs(lines);
    const metrics = recordingDataset();
    const ran: string[] = [];
    const jobs: CronJob[] = [
      { name: "first_ok", phase: 0, run: async () => void ran.push("first_ok") },
      { name: "explodes", phase: 0, run: async () => Promise.reject(new Error("the earn sweep fell over")) },
      { name: "throws_at_once", phase: 0, run: () => { throw new TypeError("not even a promise"); } },
      { name: "after_ok", phase: 1, run: async () => (ran.push("after_ok"), { settled: 3 }) },
    ];
    const run = await runCron({ ...testEnv, METRICS: metrics }, jobs);

    // Every job ran, the failing ones too did not stop the later phase.
    expect(ran.sort()).toEqual(["after_ok", "first_ok"]);
    expect(run.outcome).toBe("failed");
    expect(run.failures).toBe(2);

    // Recorded: the row says which failed and why, and what the others answered.
    const row = await latestRow();
    expect(row).toMatchObject({ outcome: "failed", failures: 2 });
    const recorded = JSON.parse(row.jobs_json) as { name: string; ok: boolean; error?: string; result?: unknown }[];
    expect(recorded.map((j) => [j.name, j.ok])).toEqual([
      ["first_ok", true],
      ["explodes", false],
      ["throws_at_once", false],
      ["after_ok", true],
    ]);
    expect(recorded[1].error).toBe("the earn sweep fell over");
    expect(recorded[2].error).toBe("not even a promise");
    expect(recorded[3].result).toEqual({ settled: 3 });

    // Logged: one error line per failed job, and the run's line at error level.
    const failed = lines.filter((l) => l.line.event === "cron.job_failed");
    // (In the order they failed: the phase's jobs run at once.)
    expect(failed.map((l) => [l.level, l.line.job, l.line.error]).sort()).toEqual([
      ["error", "explodes", "the earn sweep fell over"],
      ["error", "throws_at_once", "not even a promise"],
    ]);
    const runLine = lines.find((l) => l.line.event === "cron.run");
    expect(runLine?.level).toBe("error");
    expect(runLine?.line).toMatchObject({ outcome: "failed", failures: 2, failed_jobs: ["explodes", "throws_at_once"] });

    // Counted: the run's `cron` metric point.
    const points = metrics.points.filter((p) => p.kind === "cron");
    expect(points).toHaveLength(1);
    expect(points[0].blobs.outcome).toBe("failed");
    expect(points[0].doubles.failures).toBe(2);
  });

  it("the scheduled handler reports a failed run to the platform after recording it", async () => {
    // D1 answers, but the earn sweep's tables are gone for one call: its job fails, the others run.
    const failing = new Proxy(testEnv.DB, {
      get(target, prop) {
        const v = Reflect.get(target, prop);
        if (prop !== "prepare") return typeof v === "function" ? v.bind(target) : v;
        return (query: string) => (/pool_orders|miner_machines/.test(query) ? (() => { throw new Error("no such table: pool_orders"); })() : target.prepare(query));
      },
    });
    await expect(worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: Date.now() }) as never, { ...testEnv, DB: failing } as never)).rejects.toThrow(/earn_sweep/);
    const row = await latestRow();
    expect(row.outcome).toBe("failed");
    const jobs = JSON.parse(row.jobs_json) as { name: string; ok: boolean }[];
    expect(jobs.filter((j) => !j.ok).map((j) => j.name)).toEqual(["earn_sweep"]);
    expect(jobs.filter((j) => j.ok).map((j) => j.name)).toEqual(["settlement_sweep", "retention_prune", "log_poke", "liabilities"]);
  });

  it("keeps a week of runs: older rows are pruned by the next run", async () => {
    const now = Date.now();
    const old = { finished_at_ms: 0, outcome: "ok" as const, jobs_json: "[]", failures: 0, overdue_orders: 0, log_backlog: 0, checkpoint_age_ms: null };
    await db.insert(cron_runs).values([
      { ...old, started_at_ms: now - THRESHOLDS.cron_runs_keep_ms - 60_000 },
      { ...old, started_at_ms: now - THRESHOLDS.cron_runs_keep_ms + 3_600_000 },
    ]);
    await runCron(testEnv, []);
    const starts = (await db.select({ s: cron_runs.started_at_ms }).from(cron_runs)).map((r) => r.s);
    expect(starts).not.toContain(now - THRESHOLDS.cron_runs_keep_ms - 60_000);
    expect(starts).toContain(now - THRESHOLDS.cron_runs_keep_ms + 3_600_000);
  });
});
