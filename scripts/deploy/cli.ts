/** What `npm run deploy`, `npm run rollback` and `npm run provision` share: arguments, the real dependencies. */
import { execFileSync, spawnSync } from "node:child_process";
import { bin, buildApp, quietEnv, run } from "../lib";
import { measureBundle } from "./bundle";
import { DEPLOY_ENVS, type DeployEnv, readWranglerConfig } from "./config";
import { type Cloud, offlineCloud, wranglerCloud } from "./cloud";
import { localMigrations, snapshotContractions } from "../migrations";
import { fileRecords } from "./records";
import type { DeployDeps } from "./run";

export function envArg(value: string | undefined): DeployEnv {
  if (!DEPLOY_ENVS.includes(value as DeployEnv)) {
    console.error(`--env must be one of ${DEPLOY_ENVS.join(", ")} (got ${value ?? "nothing"})`);
    process.exit(2);
  }
  return value as DeployEnv;
}

function git() {
  const commit = execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  // The deploy records are written by the run itself; node_modules may be a symlink (worktrees).
  const dirty = execFileSync("git", ["status", "--porcelain"], { encoding: "utf8" })
    .split("\n").filter((l) => l.trim() && !/\s(node_modules|deploys\/)/.test(l)).length > 0;
  return { commit, dirty };
}

/** `tsc --noEmit`: null when clean, else its first lines. */
function typecheck(): Promise<string | null> {
  const r = spawnSync(bin("tsc"), ["--noEmit"], { encoding: "utf8", env: quietEnv });
  return Promise.resolve(r.status === 0 ? null : `${r.stdout}${r.stderr}`.split("\n").slice(0, 20).join("\n"));
}

/**
 * The real dependencies. A dry run asks Cloudflare nothing (it works on a clean clone with no
 * account) unless `remoteFacts`, which asks only read-only questions (pending migrations,
 * secrets, the live deployment).
 */
export function realDeps(opts: { dryRun: boolean; remoteFacts: boolean }): DeployDeps {
  const log = (line: string) => console.log(line);
  const real = wranglerCloud(log);
  const refuse = (what: string) => () => Promise.reject(new Error(`a dry run never ${what}`));
  const cloud: Cloud = !opts.dryRun ? real : {
    ...(opts.remoteFacts ? real : offlineCloud),
    deployedMigrationTag: async () => undefined,
    bookmark: refuse("takes a bookmark"),
    applyMigrations: refuse("applies migrations"),
    uploadVersion: refuse("uploads"),
    deployVersions: refuse("deploys"),
    rollback: refuse("rolls back"),
  };
  return {
    config: readWranglerConfig(),
    migrations: localMigrations(),
    snapshotsOf: (name) => snapshotContractions(name),
    records: fileRecords(),
    cloud,
    typecheck,
    async bundle(env) {
      // `npm test` builds once before everything (PROOFLINE_BUILT=1, as for npm start).
      if (process.env.PROOFLINE_BUILT !== "1") await buildApp();
      return measureBundle(env);
    },
    git: git(),
    log,
    now: () => new Date(),
  };
}
