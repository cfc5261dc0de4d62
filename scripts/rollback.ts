/**
 * `npm run rollback -- --env staging|production [--to VERSION] [--dry-run] [--reason TEXT]`:
 * `wrangler rollback` to the previous recorded version (or VERSION), refused across a Durable
 * Object migration or to a version the repo never recorded. D1, R2 and object storage are not
 * rewound (docs/ops/deploy.md).
 */
import { parseArgs } from "node:util";
import { envArg, realDeps } from "./deploy/cli";
import { runRollback } from "./deploy/run";

const { values } = parseArgs({
  options: {
    env: { type: "string" },
    to: { type: "string" },
    "dry-run": { type: "boolean", default: false },
    reason: { type: "string", default: "rollback" },
    "remote-facts": { type: "boolean", default: false },
  },
});
const dryRun = values["dry-run"]!;
const outcome = await runRollback({ env: envArg(values.env), to: values.to, dryRun, reason: values.reason! }, realDeps({ dryRun, remoteFacts: values["remote-facts"]! }));
process.exitCode = outcome.ok ? 0 : 1;
