import { readFileSync } from "node:fs";
import * as toml from "smol-toml";
import { describe, expect, it } from "vitest";
import { WORKER } from "../../../scripts/workerd-serve";

/** `npm start` configures workerd itself (scripts/workerd-serve.ts): it must serve what wrangler.toml deploys. */
const deployed = toml.parse(readFileSync(new URL("../../../wrangler.toml", import.meta.url), "utf8"));

describe("npm start's workerd and wrangler.toml", () => {
  it("run the same Worker: name, compatibility date and flags", () => {
    expect(WORKER.name).toBe(deployed.name);
    expect(WORKER.compatibilityDate).toBe(deployed.compatibility_date);
    expect([...WORKER.compatibilityFlags]).toEqual(deployed.compatibility_flags);
  });

  it("bind the same D1, R2, Durable Objects, rate limits, mail, vars and assets", () => {
    expect(WORKER.d1Databases).toEqual(Object.fromEntries(deployed.d1_databases.map((d: { binding: string; database_id: string }) => [d.binding, d.database_id])));
    expect(WORKER.r2Buckets).toEqual(Object.fromEntries(deployed.r2_buckets.map((b: { binding: string; bucket_name: string }) => [b.binding, b.bucket_name])));
    expect(WORKER.durableObjects).toEqual(Object.fromEntries(deployed.durable_objects.bindings.map((b: { name: string; class_name: string }) => [b.name, b.class_name])));
    expect(WORKER.ratelimits).toEqual(Object.fromEntries(deployed.ratelimits.map((r: { name: string; simple: object }) => [r.name, r.simple])));
    expect(WORKER.vars).toEqual(deployed.vars);
    expect(WORKER.sendEmail).toEqual(deployed.send_email);
    expect(WORKER.assets).toEqual({ directory: deployed.assets.directory.replace(/^\.\//, "./"), binding: deployed.assets.binding });
    expect([...WORKER.crons]).toEqual(deployed.triggers.crons);
  });

  it("keeps every Durable Object class in SQLite, as the migrations declare", () => {
    const sqlite = deployed.migrations.flatMap((m: { new_sqlite_classes?: string[] }) => m.new_sqlite_classes ?? []);
    expect(Object.values(WORKER.durableObjects).sort()).toEqual([...sqlite].sort());
  });
});
