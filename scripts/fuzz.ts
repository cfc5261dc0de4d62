/**
 * The long fuzz: `npm run fuzz -- --runs 2000` sends that many bad requests to every API route
 * (tests/api/fuzz; `npm test` runs the same suite at 200 a route). The count reaches the
 * tests inside workerd as the FUZZ_RUNS binding (vitest.config.ts).
 */
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { buildApp } from "./lib";

const { values } = parseArgs({ options: { runs: { type: "string", default: "2000" } } });
const runs = Number(values.runs);
if (!Number.isSafeInteger(runs) || runs < 1) {
  console.error(`--runs must be a positive whole number, not ${values.runs}`);
  process.exit(2);
}
const env = { ...process.env, FUZZ_RUNS: String(runs), WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
await buildApp();
const started = Date.now();
const r = spawnSync("npx", ["vitest", "run", "--project", "api", "tests/api/fuzz/"], { stdio: "inherit", env });
console.log(`fuzz: ${runs} requests a route, ${((Date.now() - started) / 1000).toFixed(0)} s, ${r.status === 0 ? "no 5xx, no leak, no drift" : "FAILED"}`);
process.exit(r.status ?? 1);
