/**
 * `npm run bench`: measures on this machine, in one run, and prints the figures.
 *
 *   1. one argon2id hash / verify in Node (the project's own password.ts);
 *   2. one login request end to end in workerd (`wrangler dev` on a fresh seeded state),
 *      next to /api/health as a no-hash baseline.
 *
 * Env: BENCH_PORT (default 8797; 8787 and 8799 belong to dev and e2e), BENCH_STATE_DIR.
 * The whole run is bounded (RUN_LIMIT_MS) and the server is stopped on every way out.
 */
import { benchLoginRequests, benchPasswordHash, type Row } from "./identity";
import { ms, startServer, stopAllServers, table, withTimeout, type Server } from "./lib";

const PORT = Number(process.env.BENCH_PORT ?? 8797);
const STATE_DIR = process.env.BENCH_STATE_DIR ?? ".wrangler/bench";
/** Under the 3-minute budget; a build + migrate + seed + server start is ~30-60 s of it. */
const RUN_LIMIT_MS = 170_000;

// The wrangler child runs in its own process group, so Ctrl-C in the terminal does not reach
// it: stop it here before leaving.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the bench server`);
    void stopAllServers().finally(() => {
      console.error("bench server stopped");
      process.exit(130);
    });
  });
}

// Hard stop: whatever hangs, the run ends within the budget and takes its server with it.
const hardStop = setTimeout(() => {
  console.error(`\nbench: exceeded ${RUN_LIMIT_MS / 1000} s, giving up`);
  void stopAllServers().finally(() => process.exit(1));
}, RUN_LIMIT_MS);
hardStop.unref();

async function main(): Promise<Row[]> {
  const started = performance.now();
  const rows: Row[] = [];
  console.log(`bench: node ${process.version}, ${process.platform}/${process.arch}`);

  rows.push(...(await withTimeout("password hash bench", 30_000, benchPasswordHash(10))));

  console.log(`\n== preparing ${STATE_DIR} (remix build, D1 migrations, demo seed) and starting wrangler dev on 127.0.0.1:${PORT}`);
  let server: Server | undefined;
  try {
    const t0 = performance.now();
    server = await withTimeout("server start", 120_000, startServer({ port: PORT, stateDir: STATE_DIR }));
    console.log(`server ready in ${((performance.now() - t0) / 1000).toFixed(1)} s (wrangler pid ${server.pid})`);
    rows.push(...(await withTimeout("login bench", 60_000, benchLoginRequests(server, { logins: 50, health: 200, failures: 4 }))));
  } finally {
    // Also on error or timeout: never leave a wrangler/workerd behind.
    await stopAllServers();
    if (server) console.log(`\nwrangler dev (pid ${server.pid}) stopped`);
  }
  console.log(`total bench time ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return rows;
}

function printSummary(rows: Row[]) {
  console.log("\n== summary (ms)");
  console.log(
    table(
      ["", "n", "p50", "p95", "p99", "mean", "min", "max", "errors"],
      rows.map((r) => [
        r.name,
        String(r.stats.n),
        ms(r.stats.p50),
        ms(r.stats.p95),
        ms(r.stats.p99),
        ms(r.stats.mean),
        ms(r.stats.min),
        ms(r.stats.max),
        String(r.errors),
      ]),
    ),
  );
  const find = (name: string) => rows.find((r) => r.name === name);
  const login = find("POST /api/user/login (ok)");
  const health = find("GET /api/health");
  const verify = find("verifyPassword (Node)");
  if (login && health) {
    console.log(`login/health ratio: p50 ${(login.stats.p50 / health.stats.p50).toFixed(1)}x, mean ${(login.stats.mean / health.stats.mean).toFixed(1)}x`);
  }
  if (login && verify) {
    console.log(`login p50 in workerd vs one verify p50 in Node: ${ms(login.stats.p50)} ms vs ${ms(verify.stats.p50)} ms`);
  }
  console.log("note: hashPassword/verifyPassword are pure JS (@noble/hashes argon2id); the same code runs in workerd (V8).");
}

try {
  const rows = await main();
  printSummary(rows);
  // Figures with failed requests in them are not the figures asked for: fail the run.
  if (rows.some((r) => r.errors > 0)) {
    console.error("bench: some requests did not answer as expected (see errors column)");
    process.exitCode = 1;
  }
} catch (err) {
  console.error("bench failed:", err);
  await stopAllServers();
  process.exitCode = 1;
}
