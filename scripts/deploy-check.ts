/**
 * `npm run deploy:check`: builds, bundles the Worker exactly as `wrangler deploy` would (dry
 * run, nothing uploaded, offline) and checks the compressed size against Cloudflare's 3 MiB
 * limit for a Worker on the free plan: a bundle over it is refused at deploy time, long after
 * every local test passed. Exits 1 above the limit. `npm run deploy` runs the same check
 * (scripts/deploy/bundle.ts) for the environment it deploys.
 */
import { describeBundle, measureBundle } from "./deploy/bundle";
import { buildApp } from "./lib";

await buildApp();
const { line, over } = describeBundle(await measureBundle(""));
console.log(line);
if (over) {
  console.error("deploy check failed: the compressed bundle is over the limit");
  process.exitCode = 1;
}
