/**
 * `npm run deploy -- --env staging|production [--dry-run] [--apply-migrations] [--gradual N]
 * [--confirm-do-migration] [--remote-facts]`: the preflight (configuration, typecheck, bundle
 * size, D1 migrations pending or contracting, Durable Object migrations, secrets), then the
 * wrangler commands, each printed: Time Travel bookmark, migrations, `versions upload`,
 * `versions deploy <id>@N%`, and the record in deploys/<env>.jsonl. docs/ops/deploy.md.
 */
import { parseArgs } from "node:util";
import { envArg, realDeps } from "./deploy/cli";
import { runDeploy } from "./deploy/run";

const { values } = parseArgs({
  options: {
    env: { type: "string" },
    "dry-run": { type: "boolean", default: false },
    "apply-migrations": { type: "boolean", default: false },
    gradual: { type: "string" },
    "confirm-do-migration": { type: "boolean", default: false },
    "remote-facts": { type: "boolean", default: false },
  },
});
const dryRun = values["dry-run"]!;
const outcome = await runDeploy(
  {
    env: envArg(values.env),
    dryRun,
    applyMigrations: values["apply-migrations"]!,
    gradual: values.gradual === undefined ? undefined : Number(values.gradual),
    confirmDoMigration: values["confirm-do-migration"]!,
  },
  realDeps({ dryRun, remoteFacts: values["remote-facts"]! }),
);
process.exitCode = outcome.ok ? 0 : 1;
