/**
 * `npm run provision -- --env staging|production [--dry-run]`: creates an environment's D1
 * database and R2 buckets once (`wrangler d1 create`, `wrangler r2 bucket create`) and writes the
 * new database_id into that environment's section of wrangler.toml, for the operator to commit
 * (decision 125). Names come from wrangler.toml; an id already recorded is never replaced.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { bin, quietEnv } from "./lib";
import { shown } from "./deploy/cloud";
import { envArg } from "./deploy/cli";
import { envConfig, readWranglerConfig, recordDatabaseId } from "./deploy/config";

const { values } = parseArgs({ options: { env: { type: "string" }, "dry-run": { type: "boolean", default: false } } });
const env = envArg(values.env);
const dryRun = values["dry-run"]!;
const e = envConfig(readWranglerConfig(), env)!;

function wrangler(args: string[]): string {
  console.log(`${dryRun ? "would run" : "run"}: ${shown(args)}`);
  return dryRun ? "" : execFileSync(bin("wrangler"), args, { encoding: "utf8", env: quietEnv, stdio: ["inherit", "pipe", "inherit"] });
}

for (const db of e.d1_databases ?? []) {
  if (db.database_id) { console.log(`${db.binding}: ${db.database_name} already recorded (${db.database_id})`); continue; }
  const out = wrangler(["d1", "create", db.database_name!, "--env", env]);
  if (dryRun) { console.log(`would write database_id into [[env.${env}.d1_databases]] ${db.binding}`); continue; }
  const id = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/.exec(out)?.[1];
  if (!id) throw new Error("wrangler d1 create printed no database id");
  writeFileSync("wrangler.toml", recordDatabaseId(readFileSync("wrangler.toml", "utf8"), env, db.binding, id));
  console.log(`recorded ${db.binding} = ${id} in wrangler.toml [env.${env}]: commit it`);
}
for (const b of e.r2_buckets ?? []) wrangler(["r2", "bucket", "create", b.bucket_name!]);
console.log(`then the secrets (worker/secrets.ts), each: <make> | npx wrangler secret put NAME --env ${env}; docs/ops/deploy.md`);
