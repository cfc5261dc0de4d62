/**
 * `npm run deploy` and `npm run rollback` as functions of what they are given (configuration,
 * migrations, records, the checks and the Cloud): the scripts wire the real ones, the tests wire
 * fakes. A preflight collects every reason to refuse before anything runs; a dry run prints the
 * commands a real run would run and changes nothing (docs/ops/deploy.md).
 */
import { SECRETS, type SecretSpec } from "../../worker/secrets";
import { describeBundle, type BundleMeasure } from "./bundle";
import { type Cloud, commands, shown, type VersionShare } from "./cloud";
import { configProblems, type DeployEnv, doMigrationTags, envConfig, type WorkerConfig, workerName } from "./config";
import { contractions, type LocalMigration } from "../migrations";
import type { DeployRecord, RecordStore } from "./records";

export type DeployOptions = {
  env: DeployEnv;
  dryRun: boolean;
  applyMigrations: boolean;
  /** Percentage of traffic the new version gets first (1..99); absent: all of it. */
  gradual?: number;
  confirmDoMigration: boolean;
};

export type DeployDeps = {
  config: WorkerConfig;
  migrations: LocalMigration[];
  /** Contractions a migration's drizzle snapshots show (tests pass none). */
  snapshotsOf?: (name: string) => string[];
  records: RecordStore;
  cloud: Cloud;
  /** null when it passes, else the first lines of the errors. */
  typecheck(): Promise<string | null>;
  bundle(env: DeployEnv): Promise<BundleMeasure>;
  git: { commit: string; dirty: boolean };
  log(line: string): void;
  now(): Date;
};

export type Outcome = { ok: boolean; refusals: string[]; version_id?: string; bookmark?: string };

const UNKNOWN = "(dry run, no account: not asked)";

/** Every reason to refuse, each on its own, and the facts a real run goes on with. */
async function preflight(o: DeployOptions, d: DeployDeps) {
  const refusals: string[] = [];
  const notes: string[] = [];
  const e = envConfig(d.config, o.env)!;

  for (const p of configProblems(d.config, o.env, { requireIds: !o.dryRun })) refusals.push(`configuration: ${p}`);
  if (o.dryRun && (e?.d1_databases ?? []).some((db) => db.database_id === undefined)) {
    notes.push(`${o.env}'s D1 id is not recorded yet: a real deploy refuses until \`npm run provision -- --env ${o.env}\` has run (it runs \`npx wrangler d1 create ${e.d1_databases?.[0]?.database_name}\` and writes the id) and wrangler.toml is committed`);
  }
  if (!e) return { refusals, notes, pending: null, current: null, tags: [] as string[] };
  if (o.gradual !== undefined && !(Number.isInteger(o.gradual) && o.gradual >= 1 && o.gradual <= 99)) refusals.push(`--gradual takes a whole percentage from 1 to 99, not ${o.gradual}`);
  if (!o.dryRun && d.git.dirty) refusals.push("the checkout has uncommitted changes: a deploy names the commit it ships, so commit first");

  const typeErrors = await d.typecheck();
  if (typeErrors !== null) refusals.push(`typecheck failed (npm run typecheck):\n${typeErrors}`);
  const size = describeBundle(await d.bundle(o.env));
  d.log(size.line);
  if (size.over) refusals.push(`the bundle is too big for Cloudflare: ${size.line}`);

  // D1: what the remote database lacks. Unknown offline: the deploy record's list stands in for
  // the contraction check, and a real run asks.
  const records = d.records.list(o.env);
  const last = records.filter((r) => r.kind === "deploy").at(-1);
  const pendingRemote = await d.cloud.pendingMigrations(o.env);
  const recorded = new Set(last?.migrations ?? []);
  const pending = pendingRemote ?? d.migrations.filter((m) => !recorded.has(m.name)).map((m) => m.name);
  if (pendingRemote === null) notes.push(`pending D1 migrations ${UNKNOWN}; a real run asks \`${shown(commands.pendingMigrations(o.env))}\`. By ${d.records.where(o.env)}: ${pending.length} (${pending.join(", ") || "none"})`);
  else if (pendingRemote.length > 0 && !o.applyMigrations) refusals.push(`${pendingRemote.length} D1 migration(s) not applied to ${o.env}: ${pendingRemote.join(", ")}. Run again with --apply-migrations (they are applied before the new version takes traffic; the old version must work on the new schema: expand, then contract)`);
  const pendingFiles = d.migrations.filter((m) => pending.includes(m.name));
  for (const c of contractions(pendingFiles, d.snapshotsOf ?? (() => []))) {
    if (c.deliberate) notes.push(`contract step ${c.migration} (${c.changes.join("; ")}): "${c.deliberate}". A rollback past this deploy to a version that still reads what it removes would break`);
    else refusals.push(`${c.migration} ${c.changes.join("; ")}: a rollback never rewinds D1, so the version running now (and any rollback target) would lose what it reads. Expand first; contract in a later deploy, with a \`-- contract: <reason>\` line in the migration (decision 126)`);
  }

  // Durable Objects: a migration bars every rollback to a version from before it.
  const tags = doMigrationTags(e);
  const remoteTag = await d.cloud.deployedMigrationTag(o.env);
  const deployedTag = remoteTag !== undefined ? remoteTag : (last?.do_migration_tag ?? null);
  const newTags = deployedTag === null ? tags : tags.slice(tags.indexOf(deployedTag) + 1);
  if (deployedTag !== null && !tags.includes(deployedTag)) refusals.push(`${o.env} runs Durable Object migration tag ${deployedTag}, which wrangler.toml no longer lists`);
  const current = await d.cloud.currentDeployment(o.env);
  const runsSomething = records.length > 0 || (current !== null && current.length > 0);
  if (newTags.length > 0) {
    const what = `Durable Object migration ${newTags.join(", ")} (${e.migrations!.filter((m) => newTags.includes(m.tag)).map((m) => JSON.stringify(m)).join(" ")})`;
    if (runsSomething) {
      if (!o.confirmDoMigration) refusals.push(`${what} goes out with this version: once applied, no rollback can return to a version from before it (Cloudflare refuses it). Run again with --confirm-do-migration`);
      else notes.push(`${what}: confirmed; rollbacks stop at this version`);
      if (o.gradual !== undefined) refusals.push(`a version with a Durable Object migration is deployed to all traffic at once (the old version would run on migrated objects): drop --gradual`);
    } else if (current === null) {
      notes.push(`${what}: by ${d.records.where(o.env)} this is ${o.env}'s first deploy (nothing to roll back to). A real run asks \`${shown(commands.currentDeployment(o.env))}\`; if a version already runs, it needs --confirm-do-migration`);
    } else {
      notes.push(`${what}: first deploy of ${o.env}, nothing to roll back to`);
    }
  }

  // Secrets, against the one list the Worker reads (worker/secrets.ts).
  const secrets = await d.cloud.secretNames(o.env);
  if (secrets === null) notes.push(`secrets ${UNKNOWN}; a real run asks \`${shown(commands.secretNames(o.env))}\` for ${SECRETS.filter((s: SecretSpec) => !s.optional).map((s) => s.name).join(", ")}`);
  else for (const s of SECRETS.filter((s: SecretSpec) => !s.optional && ![s.name, ...(s.satisfiedBy ?? [])].some((n) => secrets.includes(n)))) {
    refusals.push(`secret ${s.name} is not set on ${o.env} (${s.why}): ${s.make} | npx wrangler secret put ${s.name} --env ${o.env}`);
  }
  return { refusals, notes, pending: pendingRemote, current, tags };
}

export async function runDeploy(o: DeployOptions, d: DeployDeps): Promise<Outcome> {
  d.log(`deploy ${d.config.name} to ${o.env} as Worker "${workerName(d.config, o.env)}" from ${d.git.commit}${o.dryRun ? " (dry run: nothing is changed)" : ""}`);
  const { refusals, notes, pending, current, tags } = await preflight(o, d);
  for (const n of notes) d.log(`note: ${n}`);
  if (refusals.length > 0) {
    d.log(`refused (${refusals.length}):`);
    for (const r of refusals) d.log(`  - ${r}`);
    return { ok: false, refusals };
  }
  d.log("preflight passed");
  const step = (args: string[]) => d.log(`${o.dryRun ? "would run" : "run"}: ${shown(args)}`);
  const message = `${d.git.commit}`;

  // 1. The restore point: Time Travel's bookmark from before any migration.
  step(commands.bookmark(o.env));
  const bookmark = o.dryRun ? "<bookmark>" : await d.cloud.bookmark(o.env);
  d.log(`D1 bookmark before this deploy: ${bookmark} (restore: npx wrangler d1 time-travel restore DB --bookmark ${bookmark} --env ${o.env}; docs/ops/restore.md first)`);
  // 2. Migrations, before any traffic reaches the new code (expand only, decision 126).
  if (o.applyMigrations && (pending === null || pending.length > 0)) {
    step(commands.applyMigrations(o.env));
    if (!o.dryRun) await d.cloud.applyMigrations(o.env);
  } else if (pending === null) {
    d.log(`(without --apply-migrations a real run refuses if any are pending; with it, it runs: ${shown(commands.applyMigrations(o.env))})`);
  }
  // 3. Upload without traffic, then shift traffic.
  const tag = d.git.commit.slice(0, 12);
  step(commands.uploadVersion(o.env, tag, `${message} bookmark ${bookmark}`));
  const version_id = o.dryRun ? "<new-version-id>" : await d.cloud.uploadVersion(o.env, tag, `${message} bookmark ${bookmark}`);
  const previous = current && current.length > 0 ? [...current].sort((a, b) => b.percentage - a.percentage)[0].version_id : null;
  const shares: VersionShare[] = o.gradual !== undefined && (previous || o.dryRun)
    ? [{ version_id, percentage: o.gradual }, { version_id: previous ?? "<current-version-id>", percentage: 100 - o.gradual }]
    : [{ version_id, percentage: 100 }];
  step(commands.deployVersions(o.env, shares, message));
  if (!o.dryRun) await d.cloud.deployVersions(o.env, shares, message);

  const record: DeployRecord = {
    kind: "deploy", at: d.now().toISOString(), env: o.env, git_commit: d.git.commit, version_id,
    percentage: shares[0].percentage, previous_version_id: shares[1]?.version_id ?? null, bookmark,
    migrations: d.migrations.map((m) => m.name), do_migration_tag: tags.at(-1) ?? null,
  };
  if (o.dryRun) d.log(`would append to ${d.records.where(o.env)}: ${JSON.stringify(record)}`);
  else {
    d.records.append(record);
    d.log(`recorded in ${d.records.where(o.env)}: commit it (git add ${d.records.where(o.env)} && git commit)`);
  }
  if (shares.length > 1) {
    d.log(`gradual: ${version_id} takes ${shares[0].percentage}%. Watch /api/health/ready and the 5xx rate (docs/ops/deploy.md), then:`);
    d.log(`  more:  ${shown(commands.deployVersions(o.env, [{ version_id, percentage: 100 }], "promote"))}`);
    d.log(`  abort: ${shown(commands.deployVersions(o.env, [{ version_id: shares[1].version_id, percentage: 100 }], "abort"))}`);
  }
  d.log(o.dryRun ? "dry run passed" : `deployed ${version_id} to ${o.env}`);
  return { ok: true, refusals: [], version_id, bookmark };
}

export type RollbackOptions = { env: DeployEnv; to?: string; dryRun: boolean; reason: string };

/**
 * `wrangler rollback`, refused where Cloudflare would refuse or where the repo cannot tell: the
 * target must be a version this repo recorded, with the same Durable Object migration tag as the
 * version running now. D1, R2 and the objects' storage stay as they are.
 */
export async function runRollback(o: RollbackOptions, d: Pick<DeployDeps, "records" | "cloud" | "config" | "git" | "log" | "now">): Promise<Outcome> {
  const refusals: string[] = [];
  const records = d.records.list(o.env);
  const deployed = records.filter((r) => r.kind === "deploy");
  const latest = records.at(-1);
  d.log(`rollback ${o.env}${o.dryRun ? " (dry run: nothing is changed)" : ""}`);
  d.log("note: a rollback changes only the code that serves. D1, R2 (uploads, the transparency log) and Durable Object storage are NOT rewound: the version rolled back to runs on today's data and schema");
  if (!latest) refusals.push(`no deploy of ${o.env} is recorded in ${d.records.where(o.env)}: nothing known to roll back to`);
  const current = latest?.version_id;
  const target = o.to
    ? deployed.find((r) => r.version_id === o.to)
    : [...deployed].reverse().find((r) => r.version_id !== current);
  if (latest && !target) refusals.push(o.to ? `${o.to} is not a version recorded in ${d.records.where(o.env)}: the repo cannot tell its Durable Object migration tag` : `no earlier version of ${o.env} is recorded`);
  if (latest && target) {
    if (target.version_id === current) refusals.push(`${target.version_id} is the version running now`);
    if (target.do_migration_tag !== latest.do_migration_tag) {
      refusals.push(`a Durable Object migration (${target.do_migration_tag ?? "none"} -> ${latest.do_migration_tag ?? "none"}) lies between ${target.version_id} and the version running now: Cloudflare refuses such a rollback, and the objects' storage cannot go back. Deploy a fix forward instead`);
    }
    const newer = deployed.slice(deployed.indexOf(target) + 1);
    const later = newer.flatMap((r) => r.migrations).filter((m) => !target.migrations.includes(m));
    if (later.length > 0) d.log(`note: D1 keeps migrations applied after ${target.version_id}: ${[...new Set(later)].join(", ")} (expand-only, so the older code still works; decision 126)`);
    const idx = deployed.length - 1 - deployed.indexOf(target);
    if (idx >= 100) refusals.push(`${target.version_id} is older than the 100 most recent versions Cloudflare keeps for rollback`);
  }
  const current_live = await d.cloud.currentDeployment(o.env);
  if (current_live === null) d.log(`note: the live deployment ${UNKNOWN}; a real run asks \`${shown(commands.currentDeployment(o.env))}\``);
  else if (current && !current_live.some((v) => v.version_id === current)) refusals.push(`${o.env} serves ${current_live.map((v) => `${v.version_id}@${v.percentage}%`).join(", ")}, not the recorded ${current}: someone deployed outside npm run deploy; look before rolling back`);
  if (refusals.length > 0) {
    d.log(`refused (${refusals.length}):`);
    for (const r of refusals) d.log(`  - ${r}`);
    return { ok: false, refusals };
  }
  const args = commands.rollback(o.env, target!.version_id, o.reason);
  d.log(`${o.dryRun ? "would run" : "run"}: ${shown(args)}`);
  if (!o.dryRun) {
    await d.cloud.rollback(o.env, target!.version_id, o.reason);
    d.records.append({ ...target!, kind: "rollback", at: d.now().toISOString(), git_commit: d.git.commit, percentage: 100, previous_version_id: current ?? null, bookmark: "" });
    d.log(`recorded in ${d.records.where(o.env)}: commit it`);
  }
  d.log(o.dryRun ? "dry run passed" : `rolled ${o.env} back to ${target!.version_id}`);
  return { ok: true, refusals: [], version_id: target!.version_id };
}
