import { readFileSync } from "node:fs";
import * as toml from "smol-toml";
import { describe, expect, it } from "vitest";
import { configProblems, DEPLOY_ENVS, isPlaceholderId, recordDatabaseId, TEST_SWITCHES, type WorkerConfig } from "../../../scripts/deploy/config";

/** wrangler.toml: the local configuration at the top, staging and production each complete (decision 125). */
const config = toml.parse(readFileSync(new URL("../../../wrangler.toml", import.meta.url), "utf8")) as WorkerConfig;
const envNamesOf = (list: { binding?: string; name?: string }[] | undefined) => (list ?? []).map((b) => b.binding ?? b.name).sort();

/** What the Worker binds, read from worker/env.ts (not from the top of wrangler.toml, which could lose one too). */
const envTs = readFileSync(new URL("../../../worker/env.ts", import.meta.url), "utf8");
const declared = (type: string) => [...envTs.matchAll(new RegExp(String.raw`^\s+([A-Z_]+)\??: ${type}\b`, "gm"))].map((m) => m[1]).sort();

describe("wrangler.toml's environments", () => {
  it("keeps the local configuration at the top: all-zero D1 id, no environment's names", () => {
    expect(config.d1_databases?.[0].database_id).toBe("00000000-0000-0000-0000-000000000000");
    expect(Object.keys(config.env ?? {}).sort()).toEqual([...DEPLOY_ENVS].sort());
  });

  for (const name of DEPLOY_ENVS) {
    describe(name, () => {
      const e = config.env![name];

      it("binds every D1, R2, rate limit, dataset, mail and assets binding the Worker declares", () => {
        expect(envNamesOf(e.d1_databases)).toEqual(declared("D1Database"));
        expect(envNamesOf(e.r2_buckets)).toEqual(declared("R2Bucket"));
        expect(envNamesOf(e.ratelimits)).toEqual(declared("RateLimit"));
        expect(envNamesOf(e.analytics_engine_datasets)).toEqual(declared("AnalyticsEngineDataset"));
        expect(envNamesOf(e.send_email)).toEqual(declared("SendEmail"));
        // The sender the Worker uses is one the binding allows (decision 139).
        for (const b of e.send_email ?? []) expect(b.allowed_sender_addresses).toContain(e.vars?.MAIL_FROM);
        expect(e.assets?.binding).toBe("ASSETS");
        expect(declared("Fetcher")).toEqual(["ASSETS"]);
        for (const db of e.d1_databases!) expect(db.migrations_dir).toBe("migrations");
      });

      it("binds every Durable Object class, each created by one of its own migrations, with every tag of the top level", () => {
        const bound = (e.durable_objects?.bindings ?? []).map((b) => b.name).sort();
        expect(bound).toEqual(declared("DurableObjectNamespace"));
        expect(e.durable_objects!.bindings).toEqual(config.durable_objects!.bindings);
        const created = (e.migrations ?? []).flatMap((m) => m.new_sqlite_classes ?? []).sort();
        expect(created).toEqual(e.durable_objects!.bindings!.map((b) => b.class_name).sort());
        expect((e.migrations ?? []).map((m) => m.tag)).toEqual(config.migrations!.map((m) => m.tag));
        expect(e.migrations).toEqual(config.migrations);
      });

      it("has the vars, the cron and observability with a sampling rate", () => {
        for (const v of Object.keys(config.vars!)) expect(e.vars).toHaveProperty(v);
        expect(["production", "demo"]).toContain(e.vars!.APP_ENV);
        expect(e.triggers?.crons).toEqual(config.triggers!.crons);
        expect(e.observability?.enabled).toBe(true);
        expect(e.observability?.head_sampling_rate).toBeGreaterThan(0);
        expect(e.observability?.head_sampling_rate).toBeLessThanOrEqual(1);
      });

      it("sets no test switch and no placeholder id", () => {
        for (const s of TEST_SWITCHES) expect(e.vars ?? {}).not.toHaveProperty(s);
        for (const db of e.d1_databases!) if (db.database_id !== undefined) expect(isPlaceholderId(db.database_id)).toBe(false);
        expect(configProblems(config, name, { requireIds: false })).toEqual([]);
      });
    });
  }

  it("gives each environment its own database, buckets, dataset and limiter", () => {
    const [s, p] = [config.env!.staging, config.env!.production];
    expect(s.d1_databases![0].database_name).not.toBe(p.d1_databases![0].database_name);
    for (const b of s.r2_buckets!) expect(p.r2_buckets!.map((x) => x.bucket_name)).not.toContain(b.bucket_name);
    expect(s.analytics_engine_datasets![0].dataset).not.toBe(p.analytics_engine_datasets![0].dataset);
    expect(s.ratelimits![0].namespace_id).not.toBe(p.ratelimits![0].namespace_id);
  });
});

describe("the configuration rules the deploy refuses on", () => {
  const clone = () => JSON.parse(JSON.stringify(config)) as WorkerConfig;

  it("refuses a test switch, a placeholder id, a missing binding, class or tag, and observability off", () => {
    const c = clone();
    const p = c.env!.production;
    p.vars!.TEST_CLOCK = "1";
    p.d1_databases![0].database_id = "00000000-0000-0000-0000-000000000000";
    p.r2_buckets = p.r2_buckets!.slice(0, 1);
    p.durable_objects!.bindings = p.durable_objects!.bindings!.slice(1);
    p.migrations = p.migrations!.slice(0, 3);
    p.observability = { enabled: false };
    p.analytics_engine_datasets = [];
    const problems = configProblems(c, "production", { requireIds: false }).join("\n");
    expect(problems).toMatch(/test switches: TEST_CLOCK/);
    expect(problems).toMatch(/placeholder database_id/);
    expect(problems).toMatch(/lacks R2 buckets: LOG/);
    expect(problems).toMatch(/lacks Durable Object bindings: USER_CHANNEL=UserChannel/);
    expect(problems).toMatch(/lacks Durable Object migration tags: v4/);
    expect(problems).toMatch(/observability\] must be enabled/);
    expect(problems).toMatch(/Analytics Engine datasets: METRICS/);
  });

  it("refuses an environment whose paths that skip the asset lookup differ from the top level's", () => {
    const c = clone();
    c.env!.staging.assets!.run_worker_first = ["/api/*"];
    expect(configProblems(c, "staging", { requireIds: false })).toContain("[env.staging.assets] run_worker_first differs from the top level's");
    delete c.env!.staging.assets!.run_worker_first;
    expect(configProblems(c, "staging", { requireIds: false })).toContain("[env.staging.assets] run_worker_first differs from the top level's");
  });

  it("asks a real deploy for the D1 id `npm run provision` records", () => {
    const c = clone();
    delete c.env!.staging.d1_databases![0].database_id;
    expect(configProblems(c, "staging", { requireIds: true }).join()).toMatch(/npm run provision -- --env staging/);
    c.env!.staging.d1_databases![0].database_id = "5b1e2a4c-9f0d-4c1b-8a7e-2f3d4c5b6a70";
    expect(configProblems(c, "staging", { requireIds: true })).toEqual([]);
  });

  it("npm run provision writes the new id into that environment's block only", () => {
    const text = readFileSync(new URL("../../../wrangler.toml", import.meta.url), "utf8");
    const next = toml.parse(recordDatabaseId(text, "staging", "DB", "5b1e2a4c-9f0d-4c1b-8a7e-2f3d4c5b6a70")) as WorkerConfig;
    expect(next.env!.staging.d1_databases![0].database_id).toBe("5b1e2a4c-9f0d-4c1b-8a7e-2f3d4c5b6a70");
    expect(next.env!.production.d1_databases![0].database_id).toBe(config.env!.production.d1_databases![0].database_id);
    expect(next.d1_databases![0].database_id).toBe("00000000-0000-0000-0000-000000000000");
    expect(() => recordDatabaseId(text, "staging", "DB", "00000000-0000-0000-0000-000000000000")).toThrow(/not a D1 id/);
  });

  it("knows a placeholder id from a real one", () => {
    for (const id of [undefined, "", "00000000-0000-0000-0000-000000000000", "<your database id>", "REPLACE_ME"]) expect(isPlaceholderId(id)).toBe(true);
    expect(isPlaceholderId("5b1e2a4c-9f0d-4c1b-8a7e-2f3d4c5b6a70")).toBe(false);
  });
});
