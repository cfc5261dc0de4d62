import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readWranglerConfig } from "../../../scripts/deploy/config";
import { WORKER } from "../../../scripts/workerd-serve";

/** `npm start` configures workerd itself (scripts/workerd-serve.ts): it must serve what wrangler.toml deploys. */
const deployed = readWranglerConfig(fileURLToPath(new URL("../../../wrangler.toml", import.meta.url)));

describe("npm start's workerd and wrangler.toml", () => {
  it("run the same Worker: name, compatibility date and flags", () => {
    expect(WORKER.name).toBe(deployed.name);
    expect(WORKER.compatibilityDate).toBe(deployed.compatibility_date);
    expect([...WORKER.compatibilityFlags]).toEqual(deployed.compatibility_flags);
  });

  it("bind the same D1, R2, Durable Objects, rate limits, mail, vars and assets", () => {
    expect(WORKER.d1Databases).toEqual(Object.fromEntries(deployed.d1_databases!.map((d) => [d.binding, d.database_id])));
    expect(WORKER.r2Buckets).toEqual(Object.fromEntries(deployed.r2_buckets!.map((b) => [b.binding, b.bucket_name])));
    expect(WORKER.durableObjects).toEqual(Object.fromEntries(deployed.durable_objects!.bindings!.map((b) => [b.name, b.class_name])));
    expect(WORKER.ratelimits).toEqual(Object.fromEntries(deployed.ratelimits!.map((r) => [r.name, r.simple])));
    expect(WORKER.vars).toEqual(deployed.vars);
    expect(WORKER.sendEmail).toEqual(deployed.send_email);
    expect(WORKER.assets).toEqual({ directory: deployed.assets!.directory!.replace(/^\.\//, "./"), binding: deployed.assets!.binding, run_worker_first: deployed.assets!.run_worker_first });
    expect([...WORKER.crons]).toEqual(deployed.triggers!.crons);
  });

  it("keeps every Durable Object class in SQLite, as the migrations declare", () => {
    const sqlite = deployed.migrations!.flatMap((m) => m.new_sqlite_classes ?? []);
    expect(Object.values(WORKER.durableObjects).sort()).toEqual([...sqlite].sort());
  });
});
