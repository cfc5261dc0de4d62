/**
 * Everything the deploy and rollback learn from or do to Cloudflare, behind one small interface:
 * the real one runs wrangler; `offlineCloud` knows nothing (a dry run on a clean clone, with no
 * account); tests hand in fakes that answer each bad case. Every command is printed before it
 * runs, exactly as an operator would type it.
 */
import { spawn } from "node:child_process";
import { bin, quietEnv } from "../lib";
import type { DeployEnv } from "./config";
import { migrationsApply, migrationsList } from "../migrations";

export type VersionShare = { version_id: string; percentage: number };

export interface Cloud {
  /** D1 migrations not yet applied to the environment's database; null when it cannot be asked. */
  pendingMigrations(env: DeployEnv): Promise<string[] | null>;
  /** Names of the secrets set on the environment's Worker; null when it cannot be asked. */
  secretNames(env: DeployEnv): Promise<string[] | null>;
  /** The versions the environment serves now ([] before its first deploy); null when it cannot be asked. */
  currentDeployment(env: DeployEnv): Promise<VersionShare[] | null>;
  /** The Durable Object migration tag the deployed Worker has reached (null: none or unknown). */
  deployedMigrationTag(env: DeployEnv): Promise<string | null | undefined>;
  /** D1 Time Travel's bookmark for now (the point a restore goes back to). */
  bookmark(env: DeployEnv): Promise<string>;
  applyMigrations(env: DeployEnv): Promise<void>;
  /** Uploads a version without sending it traffic; its id. */
  uploadVersion(env: DeployEnv, tag: string, message: string): Promise<string>;
  deployVersions(env: DeployEnv, shares: VersionShare[], message: string): Promise<void>;
  rollback(env: DeployEnv, version_id: string, message: string): Promise<void>;
}

/** The wrangler command lines, one place (the docs and the dry run print these). */
export const commands = {
  pendingMigrations: (env: DeployEnv) => migrationsList({ remote: env }),
  secretNames: (env: DeployEnv) => ["secret", "list", "--format", "json", "--env", env],
  currentDeployment: (env: DeployEnv) => ["deployments", "status", "--json", "--env", env],
  bookmark: (env: DeployEnv) => ["d1", "time-travel", "info", "DB", "--json", "--env", env],
  applyMigrations: (env: DeployEnv) => migrationsApply({ remote: env }),
  uploadVersion: (env: DeployEnv, tag: string, message: string) => ["versions", "upload", "--env", env, "--tag", tag, "--message", message],
  deployVersions: (env: DeployEnv, shares: VersionShare[], message: string) => ["versions", "deploy", ...shares.map((s) => `${s.version_id}@${s.percentage}%`), "--message", message, "--yes", "--env", env],
  rollback: (env: DeployEnv, version_id: string, message: string) => ["rollback", version_id, "--message", message, "--yes", "--env", env],
};

/** A command as the operator would type it. */
export function shown(args: string[]): string {
  return ["npx wrangler", ...args.map((a) => (/^[\w@%.:/=-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`))].join(" ");
}

function capture(args: string[], log: (line: string) => void): Promise<string> {
  log(`$ ${shown(args)}`);
  return new Promise((resolve, reject) => {
    const child = spawn(bin("wrangler"), args, { env: quietEnv, stdio: ["inherit", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (b: Buffer) => { out += b; process.stdout.write(b); });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`${shown(args)} exited with ${code}`))));
  });
}

/** The JSON wrangler prints after its banner. */
function jsonOf<T>(out: string): T {
  const start = out.search(/[[{]/);
  return JSON.parse(out.slice(start)) as T;
}

/** The real Cloudflare, through wrangler (needs `wrangler login` or CLOUDFLARE_API_TOKEN). */
export function wranglerCloud(log: (line: string) => void): Cloud {
  return {
    async pendingMigrations(env) {
      const out = await capture(commands.pendingMigrations(env), log);
      return [...out.matchAll(/(\d{4}_[\w-]+\.sql)/g)].map((m) => m[1]);
    },
    async secretNames(env) {
      return jsonOf<{ name: string }[]>(await capture(commands.secretNames(env), log)).map((s) => s.name);
    },
    async currentDeployment(env) {
      const out = await capture(commands.currentDeployment(env), log).catch(() => "");
      if (!out.includes("{")) return [];
      const d = jsonOf<{ versions?: { version_id: string; percentage: number }[] }>(out);
      return (d.versions ?? []).map((v) => ({ version_id: v.version_id, percentage: v.percentage }));
    },
    async deployedMigrationTag() {
      // wrangler has no command that prints it; the deploy record (deploys/<env>.jsonl) is read instead.
      return undefined;
    },
    async bookmark(env) {
      return jsonOf<{ bookmark: string }>(await capture(commands.bookmark(env), log)).bookmark;
    },
    async applyMigrations(env) {
      await capture(commands.applyMigrations(env), log);
    },
    async uploadVersion(env, tag, message) {
      const out = await capture(commands.uploadVersion(env, tag, message), log);
      const id = /Worker Version ID:\s*([0-9a-f-]{36})/i.exec(out)?.[1];
      if (!id) throw new Error("wrangler versions upload printed no version id");
      return id;
    },
    async deployVersions(env, shares, message) {
      await capture(commands.deployVersions(env, shares, message), log);
    },
    async rollback(env, version_id, message) {
      await capture(commands.rollback(env, version_id, message), log);
    },
  };
}

/** No account, no network: every question is unknown; a dry run prints what a real run would ask. */
export const offlineCloud: Pick<Cloud, "pendingMigrations" | "secretNames" | "currentDeployment" | "deployedMigrationTag"> = {
  pendingMigrations: async () => null,
  secretNames: async () => null,
  currentDeployment: async () => null,
  deployedMigrationTag: async () => undefined,
};
