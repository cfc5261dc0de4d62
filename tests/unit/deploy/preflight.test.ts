import { readFileSync } from "node:fs";
import * as toml from "smol-toml";
import { describe, expect, it } from "vitest";
import type { Cloud, VersionShare } from "../../../scripts/deploy/cloud";
import type { DeployEnv, WorkerConfig } from "../../../scripts/deploy/config";
import type { LocalMigration } from "../../../scripts/migrations";
import { memoryRecords, type DeployRecord } from "../../../scripts/deploy/records";
import { type DeployDeps, type DeployOptions, runDeploy, runRollback } from "../../../scripts/deploy/run";
import { SECRETS } from "../../../worker/secrets";

/**
 * `npm run deploy` and `npm run rollback` with fakes for Cloudflare and the slow checks: each
 * refusal happens, and a passing run issues exactly the wrangler commands it prints.
 */
const toml_ = toml.parse(readFileSync(new URL("../../../wrangler.toml", import.meta.url), "utf8")) as WorkerConfig;
const DB_ID = "5b1e2a4c-9f0d-4c1b-8a7e-2f3d4c5b6a70";

function provisioned(): WorkerConfig {
  const c = JSON.parse(JSON.stringify(toml_)) as WorkerConfig;
  for (const e of Object.values(c.env!)) e.d1_databases![0].database_id = DB_ID;
  return c;
}

const MIGRATIONS: LocalMigration[] = [
  { name: "0000_init.sql", sql: "CREATE TABLE `a` (`id` integer);" },
  { name: "0001_more.sql", sql: "ALTER TABLE `a` ADD `b` text;" },
];
const ALL_SECRETS = SECRETS.map((s) => s.name);

type Calls = string[];
/** A Cloudflare that answers as told and writes down every action. */
function fakeCloud(facts: { pending?: string[] | null; secrets?: string[] | null; current?: VersionShare[] | null; tag?: string | null }, calls: Calls): Cloud {
  return {
    pendingMigrations: async () => (facts.pending === undefined ? [] : facts.pending),
    secretNames: async () => (facts.secrets === undefined ? ALL_SECRETS : facts.secrets),
    currentDeployment: async () => (facts.current === undefined ? [{ version_id: "old-version", percentage: 100 }] : facts.current),
    deployedMigrationTag: async () => (facts.tag === undefined ? "v4" : facts.tag),
    bookmark: async (env) => (calls.push(`bookmark ${env}`), "00000085-0000024c-00004c6d-8e61117bf38d7adb71b934ebbf891683"),
    applyMigrations: async (env) => void calls.push(`apply ${env}`),
    uploadVersion: async (env, tag) => (calls.push(`upload ${env} ${tag}`), "new-version"),
    deployVersions: async (env, shares) => void calls.push(`deploy ${env} ${shares.map((s) => `${s.version_id}@${s.percentage}%`).join(" ")}`),
    rollback: async (env, id) => void calls.push(`rollback ${env} ${id}`),
  };
}

function deps(opts: Partial<Omit<DeployDeps, "records">> & { facts?: Parameters<typeof fakeCloud>[0]; records?: DeployRecord[] } = {}) {
  const { facts, records: initial, ...over } = opts;
  const calls: Calls = [];
  const lines: string[] = [];
  const records = memoryRecords(initial ?? []);
  const d: DeployDeps = {
    config: provisioned(),
    migrations: MIGRATIONS,
    records,
    cloud: fakeCloud(facts ?? {}, calls),
    typecheck: async () => null,
    bundle: async () => ({ raw_bytes: 8_000_000, gzip_bytes: 1_700_000, limit_bytes: 3 * 1024 * 1024 }),
    git: { commit: "4bd3118557052089bc7f89b69fbeee7d0b171971", dirty: false },
    log: (l) => void lines.push(l),
    now: () => new Date("2026-11-27T12:00:00Z"),
    ...over,
  };
  return { d, calls, lines, records };
}

const base: DeployOptions = { env: "staging", dryRun: false, applyMigrations: false, confirmDoMigration: false };
const record = (over: Partial<DeployRecord>): DeployRecord => ({
  kind: "deploy", at: "2026-11-20T10:00:00Z", env: "staging" as DeployEnv, git_commit: "c", version_id: "v-a", percentage: 100,
  previous_version_id: null, bookmark: "b", migrations: MIGRATIONS.map((m) => m.name), do_migration_tag: "v4", ...over,
});

describe("npm run deploy: the preflight refuses", () => {
  it("a type error", async () => {
    const { d, calls } = deps({ typecheck: async () => "worker/x.ts(1,1): error TS2322" });
    const out = await runDeploy(base, d);
    expect(out.ok).toBe(false);
    expect(out.refusals.join()).toMatch(/typecheck failed[\s\S]*TS2322/);
    expect(calls).toEqual([]);
  });

  it("a bundle over Cloudflare's limit", async () => {
    const { d } = deps({ bundle: async () => ({ raw_bytes: 9e6, gzip_bytes: 3 * 1024 * 1024 + 1, limit_bytes: 3 * 1024 * 1024 }) });
    expect((await runDeploy(base, d)).refusals.join()).toMatch(/bundle is too big/);
  });

  it("pending D1 migrations, unless told to apply them (then applied before the upload)", async () => {
    const refused = deps({ facts: { pending: ["0001_more.sql"] } });
    expect((await runDeploy(base, refused.d)).refusals.join()).toMatch(/1 D1 migration\(s\) not applied to staging: 0001_more.sql.*--apply-migrations/);
    const told = deps({ facts: { pending: ["0001_more.sql"] } });
    expect((await runDeploy({ ...base, applyMigrations: true }, told.d)).ok).toBe(true);
    expect(told.calls).toEqual(["bookmark staging", "apply staging", "upload staging 4bd311855705", "deploy staging new-version@100%"]);
  });

  it("a pending migration that drops or renames, unless its file says `-- contract:`", async () => {
    for (const sql of ["ALTER TABLE `a` DROP COLUMN `b`;", "ALTER TABLE `a` RENAME COLUMN `b` TO `c`;", "DROP TABLE `a`;", "ALTER TABLE `a` RENAME TO `z`;"]) {
      const { d } = deps({ migrations: [...MIGRATIONS, { name: "0002_contract.sql", sql }], facts: { pending: ["0002_contract.sql"] } });
      const out = await runDeploy({ ...base, applyMigrations: true }, d);
      expect(out.refusals.join(), sql).toMatch(/0002_contract.sql (drops|renames).*rollback never rewinds D1/);
    }
    const deliberate = deps({
      migrations: [...MIGRATIONS, { name: "0002_contract.sql", sql: "-- contract: b unread since deploy of 4bd3118 (decision 126)\nALTER TABLE `a` DROP COLUMN `b`;" }],
      facts: { pending: ["0002_contract.sql"] },
    });
    expect((await runDeploy({ ...base, applyMigrations: true }, deliberate.d)).ok).toBe(true);
    expect(deliberate.lines.join("\n")).toMatch(/contract step 0002_contract.sql/);
  });

  it("a migration already applied is not judged again", async () => {
    const { d } = deps({ migrations: [...MIGRATIONS, { name: "0002_contract.sql", sql: "DROP TABLE `a`;" }], facts: { pending: [] } });
    expect((await runDeploy(base, d)).ok).toBe(true);
  });

  it("a Durable Object migration, unless confirmed; and never with a gradual rollout", async () => {
    const c = provisioned();
    c.env!.staging.migrations!.push({ tag: "v5", new_sqlite_classes: ["Later"] });
    const { d } = deps({ config: c });
    const out = await runDeploy(base, d);
    expect(out.refusals.join()).toMatch(/Durable Object migration v5 .*no rollback can return.*--confirm-do-migration/);
    const confirmed = deps({ config: c });
    expect((await runDeploy({ ...base, confirmDoMigration: true }, confirmed.d)).ok).toBe(true);
    const gradual = deps({ config: c });
    expect((await runDeploy({ ...base, confirmDoMigration: true, gradual: 10 }, gradual.d)).refusals.join()).toMatch(/drop --gradual/);
  });

  it("knows the first deploy has nothing to roll back to (no confirmation needed)", async () => {
    const { d } = deps({ facts: { current: [], tag: null, pending: ["0000_init.sql", "0001_more.sql"] } });
    const out = await runDeploy({ ...base, applyMigrations: true }, d);
    expect(out.ok).toBe(true);
  });

  it("a missing secret, naming the command that sets it", async () => {
    const { d } = deps({ facts: { secrets: ALL_SECRETS.filter((s) => s !== "VAPID_PRIVATE_KEY") } });
    const out = await runDeploy(base, d);
    expect(out.refusals).toHaveLength(1);
    expect(out.refusals[0]).toMatch(/secret VAPID_PRIVATE_KEY is not set on staging.*npx wrangler secret put VAPID_PRIVATE_KEY --env staging/);
  });

  it("the card keyring stands in for the single card key; a rotation's secrets are never required", async () => {
    const ring = ALL_SECRETS.filter((s) => s !== "CARD_KEY" && s !== "LOG_PREVIOUS_SIGNING_KEY");
    expect((await runDeploy(base, deps({ facts: { secrets: ring } }).d)).refusals).toEqual([]);
    const neither = ALL_SECRETS.filter((s) => s !== "CARD_KEY" && s !== "CARD_KEYS");
    expect((await runDeploy(base, deps({ facts: { secrets: neither } }).d)).refusals.join()).toMatch(/secret CARD_KEY is not set/);
  });

  it("an environment without its D1 id, with a placeholder id or with a test switch", async () => {
    const noId = provisioned();
    delete noId.env!.production.d1_databases![0].database_id;
    expect((await runDeploy({ ...base, env: "production" }, deps({ config: noId }).d)).refusals.join()).toMatch(/npm run provision -- --env production/);
    const zero = provisioned();
    zero.env!.production.d1_databases![0].database_id = "00000000-0000-0000-0000-000000000000";
    expect((await runDeploy({ ...base, env: "production" }, deps({ config: zero }).d)).refusals.join()).toMatch(/placeholder database_id/);
    const sw = provisioned();
    sw.env!.production.vars!.SIM_SEED = "7";
    expect((await runDeploy({ ...base, env: "production" }, deps({ config: sw }).d)).refusals.join()).toMatch(/test switches: SIM_SEED/);
  });

  it("uncommitted changes (a deploy names its commit), but not in a dry run", async () => {
    expect((await runDeploy(base, deps({ git: { commit: "c", dirty: true } }).d)).refusals.join()).toMatch(/uncommitted/);
    expect((await runDeploy({ ...base, dryRun: true }, deps({ git: { commit: "c", dirty: true } }).d)).ok).toBe(true);
  });

  it("every reason at once, not the first only", async () => {
    const { d } = deps({ typecheck: async () => "err", facts: { pending: ["0001_more.sql"], secrets: [] } });
    expect((await runDeploy(base, d)).refusals.length).toBe(2 + SECRETS.filter((s) => !("optional" in s)).length);
  });
});

describe("npm run deploy: a passing run", () => {
  it("bookmarks, uploads, deploys and records the version and bookmark", async () => {
    const { d, calls, lines, records } = deps();
    const out = await runDeploy(base, d);
    expect(out).toMatchObject({ ok: true, version_id: "new-version" });
    expect(calls).toEqual(["bookmark staging", "upload staging 4bd311855705", "deploy staging new-version@100%"]);
    expect(lines).toContain("run: npx wrangler d1 time-travel info DB --json --env staging");
    expect(lines.some((l) => l.startsWith("run: npx wrangler versions upload --env staging --tag 4bd311855705"))).toBe(true);
    expect(records.all).toEqual([expect.objectContaining({ env: "staging", version_id: "new-version", bookmark: out.bookmark, do_migration_tag: "v4", migrations: ["0000_init.sql", "0001_more.sql"] })]);
  });

  it("rolls out gradually: N% to the new version, the rest to the one serving now, and says how to go on or back", async () => {
    const { d, calls, lines } = deps();
    expect((await runDeploy({ ...base, gradual: 10 }, d)).ok).toBe(true);
    expect(calls.at(-1)).toBe("deploy staging new-version@10% old-version@90%");
    expect(lines.join("\n")).toMatch(/more: {2}npx wrangler versions deploy new-version@100%[\s\S]*abort: npx wrangler versions deploy old-version@100%/);
    expect((await runDeploy({ ...base, gradual: 100 }, deps().d)).refusals.join()).toMatch(/--gradual takes a whole percentage/);
  });

  it("a dry run asks nothing it cannot, changes nothing, prints every command and passes", async () => {
    const offline = { pending: null, secrets: null, current: null, tag: undefined } as const;
    const c = provisioned();
    delete c.env!.staging.d1_databases![0].database_id;
    const { d, calls, lines, records } = deps({ config: c, facts: offline });
    d.cloud.deployedMigrationTag = async () => undefined;
    const out = await runDeploy({ ...base, dryRun: true, gradual: 25 }, d);
    expect(out.ok).toBe(true);
    expect(calls).toEqual([]);
    expect(records.all).toEqual([]);
    const text = lines.join("\n");
    for (const cmd of ["d1 migrations list DB --remote --env staging", "secret list --format json --env staging", "d1 time-travel info DB --json --env staging", "versions upload --env staging", "versions deploy '<new-version-id>@25%' '<current-version-id>@75%'"]) expect(text).toContain(cmd);
    expect(text).toMatch(/npm run provision -- --env staging/);
    expect(text).toMatch(/dry run passed/);
  });
});

describe("npm run rollback", () => {
  const history = [record({ version_id: "v-a", do_migration_tag: "v3" }), record({ version_id: "v-b" }), record({ version_id: "v-c" })];
  const live = { current: [{ version_id: "v-c", percentage: 100 }] };

  it("goes back to the previous recorded version, saying D1, R2 and objects stay as they are", async () => {
    const { d, calls, lines, records } = deps({ records: history, facts: live });
    const out = await runRollback({ env: "staging", dryRun: false, reason: "5xx" }, d);
    expect(out).toMatchObject({ ok: true, version_id: "v-b" });
    expect(calls).toEqual(["rollback staging v-b"]);
    expect(lines.join("\n")).toMatch(/D1, R2 .* NOT rewound/);
    expect(lines).toContain("run: npx wrangler rollback v-b --message 5xx --yes --env staging");
    expect(records.all.at(-1)).toMatchObject({ kind: "rollback", version_id: "v-b", previous_version_id: "v-c" });
  });

  it("refuses across a Durable Object migration", async () => {
    const { d, calls } = deps({ records: history, facts: live });
    const out = await runRollback({ env: "staging", to: "v-a", dryRun: false, reason: "x" }, d);
    expect(out.refusals.join()).toMatch(/Durable Object migration \(v3 -> v4\)/);
    expect(calls).toEqual([]);
  });

  it("refuses a version the repo never recorded, and when nothing is recorded", async () => {
    expect((await runRollback({ env: "staging", to: "v-zzz", dryRun: true, reason: "x" }, deps({ records: history }).d)).refusals.join()).toMatch(/not a version recorded/);
    expect((await runRollback({ env: "staging", dryRun: true, reason: "x" }, deps().d)).refusals.join()).toMatch(/no deploy of staging is recorded/);
  });

  it("refuses when the live deployment is not the recorded one", async () => {
    const { d } = deps({ records: history, facts: { current: [{ version_id: "v-x", percentage: 100 }] } });
    expect((await runRollback({ env: "staging", dryRun: false, reason: "x" }, d)).refusals.join()).toMatch(/someone deployed outside npm run deploy/);
  });

  it("a dry run prints the command and changes nothing", async () => {
    const { d, calls, lines, records } = deps({ records: history, facts: { current: null } });
    expect((await runRollback({ env: "staging", dryRun: true, reason: "x" }, d)).ok).toBe(true);
    expect(calls).toEqual([]);
    expect(records.all).toHaveLength(3);
    expect(lines).toContain("would run: npx wrangler rollback v-b --message x --yes --env staging");
  });
});
