/**
 * wrangler.toml as the deploy reads it: the top-level (local) configuration and the deployed
 * environments, and the rules an environment's configuration must meet before it is deployed
 * (docs/ops/deploy.md, decision 125). Parsed with `smol-toml`, the parser wrangler itself bundles.
 */
import { readFileSync } from "node:fs";
import * as toml from "smol-toml";

export const DEPLOY_ENVS = ["staging", "production"] as const;
export type DeployEnv = (typeof DEPLOY_ENVS)[number];

/**
 * Vars that exist for tests and benches only (worker/env.ts calls them test-only). The Worker
 * ignores them outside a local run (decision 122); a deployed environment never sets them.
 */
export const TEST_SWITCHES = [
  "TEST_CLOCK", "PRICE_FEED_ALLOW_LOOPBACK", "SIM_SEED", "GUEST_LIMITS_SCALE", "PUSH_TEST_HOSTS",
  "D1_LIMITS", "FUZZ_RUNS", "TEST_MIGRATIONS",
] as const;

type Named = { binding?: string; name?: string };
export type WorkerConfig = {
  name?: string;
  main?: string;
  compatibility_date?: string;
  compatibility_flags?: string[];
  assets?: { directory?: string; binding?: string; run_worker_first?: string[] | boolean };
  d1_databases?: { binding: string; database_name?: string; database_id?: string; migrations_dir?: string }[];
  r2_buckets?: { binding: string; bucket_name?: string }[];
  ratelimits?: { name: string; namespace_id?: string; simple?: { limit: number; period: number } }[];
  analytics_engine_datasets?: { binding: string; dataset?: string }[];
  send_email?: { name: string; allowed_sender_addresses?: string[]; destination_address?: string; allowed_destination_addresses?: string[] }[];
  durable_objects?: { bindings?: { name: string; class_name: string }[] };
  migrations?: { tag: string; new_sqlite_classes?: string[]; new_classes?: string[]; renamed_classes?: unknown[]; deleted_classes?: string[] }[];
  vars?: Record<string, string>;
  triggers?: { crons?: string[] };
  observability?: { enabled?: boolean; head_sampling_rate?: number };
  env?: Record<string, WorkerConfig>;
};

export function readWranglerConfig(path = "wrangler.toml"): WorkerConfig {
  return toml.parse(readFileSync(path, "utf8")) as WorkerConfig;
}

/** The environment's own section (never merged with the top: what wrangler deploys for it). */
export function envConfig(config: WorkerConfig, env: DeployEnv): WorkerConfig | undefined {
  return config.env?.[env];
}

/** The Worker's name on Cloudflare: wrangler appends the environment unless it names itself. */
export function workerName(config: WorkerConfig, env: DeployEnv): string {
  return config.env?.[env]?.name ?? `${config.name}-${env}`;
}

/** A D1 id that is not a real one: absent, not a UUID, or all zeros (the local configuration's). */
export function isPlaceholderId(id: string | undefined): boolean {
  if (!id) return true;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return true;
  return /^[0-]+$/.test(id);
}

/** The Durable Object migration tags, in order. */
export function doMigrationTags(c: WorkerConfig): string[] {
  return (c.migrations ?? []).map((m) => m.tag);
}

const names = (list: Named[] | undefined) => (list ?? []).map((b) => b.binding ?? b.name ?? "").sort();

/**
 * What is wrong with an environment's configuration, compared with the top-level one (which the
 * local runs and every test use, so it is the list of what the Worker binds). Empty when none.
 * `requireIds`: a real deploy needs the D1 id recorded by `npm run provision`.
 */
export function configProblems(config: WorkerConfig, env: DeployEnv, opts: { requireIds: boolean }): string[] {
  const e = envConfig(config, env);
  if (!e) return [`wrangler.toml has no [env.${env}]`];
  const problems: string[] = [];
  const same = (what: string, want: string[], got: string[]) => {
    const missing = want.filter((w) => !got.includes(w));
    if (missing.length > 0) problems.push(`[env.${env}] lacks ${what}: ${missing.join(", ")}`);
  };
  same("D1 bindings", names(config.d1_databases), names(e.d1_databases));
  same("R2 buckets", names(config.r2_buckets), names(e.r2_buckets));
  same("rate limits", names(config.ratelimits), names(e.ratelimits));
  same("Analytics Engine datasets", ["METRICS"], names(e.analytics_engine_datasets));
  same("mail (send_email) bindings", names(config.send_email), names(e.send_email));
  same("Durable Object bindings", (config.durable_objects?.bindings ?? []).map((b) => `${b.name}=${b.class_name}`),
    (e.durable_objects?.bindings ?? []).map((b) => `${b.name}=${b.class_name}`));
  same("Durable Object migration tags", doMigrationTags(config), doMigrationTags(e));
  same("vars", Object.keys(config.vars ?? {}), Object.keys(e.vars ?? {}));
  if (!e.assets?.directory || e.assets.binding !== config.assets?.binding) problems.push(`[env.${env}] lacks the assets binding ${config.assets?.binding}`);
  // The paths that skip the asset lookup (decision 166): a deployed environment routes as `npm start` does.
  if (JSON.stringify(e.assets?.run_worker_first ?? null) !== JSON.stringify(config.assets?.run_worker_first ?? null)) problems.push(`[env.${env}.assets] run_worker_first differs from the top level's`);
  if ((e.triggers?.crons ?? []).join() !== (config.triggers?.crons ?? []).join()) problems.push(`[env.${env}] crons differ from the top level's`);
  if (e.observability?.enabled !== true || typeof e.observability.head_sampling_rate !== "number") {
    problems.push(`[env.${env}.observability] must be enabled with a head_sampling_rate`);
  }
  for (const db of e.d1_databases ?? []) {
    if (!db.migrations_dir) problems.push(`[env.${env}] D1 ${db.binding} has no migrations_dir`);
    if (db.database_id !== undefined && isPlaceholderId(db.database_id)) {
      problems.push(`[env.${env}] D1 ${db.binding} has a placeholder database_id "${db.database_id}"`);
    } else if (db.database_id === undefined && opts.requireIds) {
      problems.push(`[env.${env}] D1 ${db.binding} has no database_id yet: run \`npm run provision -- --env ${env}\` and commit wrangler.toml`);
    }
  }
  const switches = TEST_SWITCHES.filter((s) => s in (e.vars ?? {}));
  if (switches.length > 0) problems.push(`[env.${env}] sets test switches: ${switches.join(", ")}`);
  if (e.vars?.APP_ENV !== "production" && e.vars?.APP_ENV !== "demo") problems.push(`[env.${env}] APP_ENV must be "production" or "demo", not "${e.vars?.APP_ENV}"`);
  return problems;
}

/** wrangler.toml's text with `database_id` written under an environment's D1 binding (`npm run provision`), the one line that changes. */
export function recordDatabaseId(text: string, envName: DeployEnv, binding: string, id: string): string {
  if (isPlaceholderId(id)) throw new Error(`not a D1 id: ${id}`);
  const header = `[[env.${envName}.d1_databases]]\nbinding = "${binding}"\n`;
  if (!text.includes(header)) throw new Error(`wrangler.toml has no ${header.trim()} block to record the id in`);
  const next = text.replace(header, `${header}database_id = "${id}"\n`);
  if (envConfig(toml.parse(next) as WorkerConfig, envName)?.d1_databases?.find((d) => d.binding === binding)?.database_id !== id) throw new Error("the id did not land in its block");
  return next;
}
