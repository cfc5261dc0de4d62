/**
 * `npm run bench [-- <group>...]`: measures on this machine, in one run, and prints the figures.
 *
 * Groups, in this order (all of them without an argument; `npm run bench -- trades` runs one):
 *   identity  1. one argon2id hash / verify in Node (the project's own password.ts);
 *             2. one login request end to end in workerd (`wrangler dev` on a fresh seeded
 *                state), next to /api/health as a no-hash baseline.
 *   trades    3. tick fan-out to 1,000 WebSocket clients;
 *             4. place-order latency/throughput with 200 users, next to /api/health;
 *             5. 10,000 orders due in the same second: settlement time, exactly-once, ledger.
 *   burst     5 alone (its own fresh state): BENCH_BURST=100000 sets the burst's size.
 *   service   6. 200 customer-service conversations at once, 10 rounds each: delivery latency
 *                from REST send to the other side's socket, lost and duplicated messages, next
 *                to a socket ping through the same object and /api/health.
 *   orders    11. orders at the stack's limit: 200 users on /api/health and /api/order/addorder,
 *                in rounds with a floor Worker (tests/bench/floor-worker.ts) and the bare floor on
 *                the same state, PASS/FAIL on the medians of the rounds' ratios (decision 168);
 *                then the settlement burst (5) (tests/bench/orders.ts).
 *   log       9. inclusion and consistency proofs on a 1,000,000-leaf transparency log read from
 *                the local R2, next to one bare tile read (tests/bench/log.ts); the burst (5)
 *                reports the log's checkpoint lag.
 *   delivery 10. 1,000 orders over a minute: from each order's delivery to its owner's page
 *                hearing the result, next to a ping on the same sockets (tests/bench/delivery.ts).
 *   lighthouse 8. Lighthouse mobile scores of home and trade (signed in), markets and login, next
 *                to the app's static offline page (tests/bench/lighthouse.ts).
 *   weight    7. the gzip JavaScript of the login, home, markets and trade routes on a first
 *                visit, next to the floor every page of the stack ships (tests/bench/weight.ts).
 *
 * Env: BENCH_PORT (default: the first free of 8780-8785; 8787-8799 belong to dev, e2e and other
 * servers), BENCH_STATE_DIR (default .wrangler/bench; the trade groups use sub-directories),
 * BENCH_TRADES (a subset of fanout,orders,burst; default all three), BENCH_SERVICE_CONVERSATIONS
 * (default 200), BENCH_BURST (the orders due in the burst's second, a multiple of 100; default 10,000),
 * BENCH_ORDERS_PAIRS and BENCH_ORDERS_SECONDS (the orders bench's rounds, default 3, and each side's
 * loops, default 6 s).
 * Every group is bounded in time, and every server is stopped on every way out.
 */
import { fanoutGroup } from "./fanout";
import { execFileSync } from "node:child_process";
import { buildApp } from "../../scripts/lib";
import { cpSync, rmSync } from "node:fs";
import { benchLoginRequests, benchPasswordHash } from "./identity";
import { freePort, loadLine, prepareState, snapshotWorker, startServer, statsTable, stopAllServers, withTimeout, ms, type GroupResult, type Row, type Server, type Snapshot } from "./lib";
import { benchPlaceOrders } from "./order-latency";
import { benchSettlementBurst, burstLimit_ms, burstSize } from "./settlement-burst";
import { benchTickFanout } from "./tick-fanout";
import { benchServiceChat } from "./service";
import { benchOrdersAtLimit } from "./orders";
import { benchPageWeight } from "./weight";
import { benchLighthouse } from "./lighthouse";
import { benchLogProofs } from "./log";
import { benchDeliveryToPage } from "./delivery";

const STATE_DIR = process.env.BENCH_STATE_DIR ?? ".wrangler/bench";
/** BENCH_TRADES: which of the trade benches to run (default all: fanout,orders,burst). */
const TRADES = (process.env.BENCH_TRADES ?? "fanout,orders,burst").split(",").map((x) => x.trim());

/** A wrong argument: its message is the whole story (no stack). */
class UsageError extends Error {}

type Group = { name: string; limit_ms: number; run: () => Promise<GroupResult> };

/** The settlement burst's own bound, from its size (BENCH_BURST). */
const BURST_LIMIT_MS = burstLimit_ms(burstSize().users * burstSize().perUser);

const GROUPS: Group[] = [
  { name: "identity", limit_ms: 170_000, run: identityGroup },
  { name: "trades", limit_ms: 230_000 + BURST_LIMIT_MS, run: tradesGroup },
  { name: "burst", limit_ms: 160_000 + BURST_LIMIT_MS, run: burstGroup },
  { name: "orders", limit_ms: 570_000 + BURST_LIMIT_MS, run: ordersGroup },
  { name: "service", limit_ms: 300_000, run: serviceGroup },
  { name: "weight", limit_ms: 120_000, run: weightGroup },
  { name: "lighthouse", limit_ms: 400_000, run: lighthouseGroup },
  { name: "log", limit_ms: 400_000, run: () => benchLogProofs(`${STATE_DIR}-log`) },
  { name: "delivery", limit_ms: 400_000, run: deliveryGroup },
  { name: "fanout", limit_ms: 900_000, run: () => fanoutGroup(`${STATE_DIR}-fanout`) },
];

async function deliveryGroup(): Promise<GroupResult> {
  const port = await freePort();
  console.log(`\n== preparing ${STATE_DIR}-delivery and serving it on 127.0.0.1:${port}`);
  try {
    const server = await withTimeout("server start", 150_000, startServer({ port, stateDir: `${STATE_DIR}-delivery` }));
    return await withTimeout("delivery bench", 240_000, benchDeliveryToPage(server));
  } finally {
    await stopAllServers();
  }
}

async function lighthouseGroup(): Promise<GroupResult> {
  const port = await freePort();
  console.log(`\n== preparing ${STATE_DIR}-lighthouse and serving it on 127.0.0.1:${port} for Lighthouse`);
  try {
    const server = await withTimeout("server start", 120_000, startServer({ port, stateDir: `${STATE_DIR}-lighthouse` }));
    return await withTimeout("lighthouse runs", 300_000, benchLighthouse(server));
  } finally {
    await stopAllServers();
  }
}

async function weightGroup(): Promise<GroupResult> {
  await buildApp({ quiet: true });
  return benchPageWeight();
}

// The wrangler child runs in its own process group, so Ctrl-C in the terminal does not reach
// it: stop it here before leaving.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the bench servers`);
    void stopAllServers().finally(() => {
      console.error("bench servers stopped");
      process.exit(130);
    });
  });
}

async function identityGroup(): Promise<GroupResult> {
  const rows: Row[] = [];
  rows.push(...(await withTimeout("password hash bench", 30_000, benchPasswordHash(10))));
  const port = await freePort();
  console.log(`\n== preparing ${STATE_DIR} (remix build, D1 migrations, demo seed) and starting wrangler dev on 127.0.0.1:${port}`);
  let server: Server | undefined;
  try {
    const t0 = performance.now();
    server = await withTimeout("server start", 120_000, startServer({ port, stateDir: STATE_DIR }));
    console.log(`server ready in ${((performance.now() - t0) / 1000).toFixed(1)} s (wrangler pid ${server.pid})`);
    rows.push(...(await withTimeout("login bench", 60_000, benchLoginRequests(server, { logins: 50, health: 200, failures: 4 }))));
  } finally {
    // Also on error or timeout: never leave a wrangler/workerd behind.
    await stopAllServers();
    if (server) console.log(`\nwrangler dev (pid ${server.pid}) stopped`);
  }
  const verdicts: string[] = [];
  const find = (name: string) => rows.find((r) => r.name === name);
  const login = find("POST /api/user/login (ok)");
  const health = find("GET /api/health");
  const verify = find("verifyPassword (Node)");
  if (login && health) verdicts.push(`login/health ratio: p50 ${(login.stats.p50 / health.stats.p50).toFixed(1)}x, mean ${(login.stats.mean / health.stats.mean).toFixed(1)}x`);
  if (login && verify) verdicts.push(`login p50 in workerd vs one verify p50 in Node: ${ms(login.stats.p50)} ms vs ${ms(verify.stats.p50)} ms`);
  verdicts.push("note: hashPassword/verifyPassword are pure JS (@noble/hashes argon2id); the same code runs in workerd (V8).");
  return { rows, verdicts };
}

/**
 * One fresh state for the fan-out and the order benches (one server), and a copy of the same
 * fresh state, taken before that server touches it, for the settlement burst (its own server,
 * started only after its orders exist).
 */
async function tradesGroup(): Promise<GroupResult> {
  const liveDir = `${STATE_DIR}-trades`;
  const burstDir = `${STATE_DIR}-burst`;
  const out: GroupResult = { rows: [], verdicts: [] };
  console.log(`\n== preparing ${liveDir} (remix build once per run, D1 migrations, demo seed)`);
  await withTimeout("prepare", 150_000, prepareState(liveDir));
  rmSync(burstDir, { recursive: true, force: true });
  cpSync(liveDir, burstDir, { recursive: true });
  // One frozen bundle of the app for both servers (see lib.ts Snapshot: edits and rebuilds by
  // others in the same tree do not restart them mid-bench).
  const snapshot = await withTimeout("snapshot", 60_000, snapshotWorker(`${STATE_DIR}-trades.snapshot`));
  // The build, the state copy and the bundle leave megabytes of dirty pages: flush them now, or
  // their write-back lands on the first bench (every tick waits for its storage commit).
  execFileSync("sync");

  const port = await freePort();
  let server: Server | undefined;
  try {
    const t0 = performance.now();
    server = await withTimeout("server start", 90_000, startServer({ port, stateDir: liveDir, skipPrepare: true, snapshot }));
    console.log(`wrangler dev ready on ${server.baseUrl} in ${((performance.now() - t0) / 1000).toFixed(1)} s (pid ${server.pid}); ${loadLine()}`);
    if (TRADES.includes("fanout")) {
      const fan = await withTimeout("tick fan-out bench", 90_000, benchTickFanout(server, { clients: 1000, batch: 100, window_ms: 20_000 }));
      out.rows.push(...fan.rows);
      out.verdicts.push(...fan.verdicts);
      console.log(loadLine());
    }
    if (TRADES.includes("orders")) {
      const orders = await withTimeout("place-order bench", 180_000, benchPlaceOrders(server, { users: 200, duration_ms: 20_000, setupConcurrency: 8 }));
      out.rows.push(...orders.rows);
      out.verdicts.push(...orders.verdicts);
    }
  } finally {
    await stopAllServers();
    if (server) console.log(`\nwrangler dev (pid ${server.pid}) stopped`);
  }

  if (!TRADES.includes("burst")) return out;
  console.log(loadLine());
  const burst = await settlementBurst(burstDir, snapshot);
  out.verdicts.push(...burst.verdicts);
  return out;
}

/** The settlement burst (settlement-burst.ts) on a prepared state: BENCH_BURST sets its size, BENCH_BURST_LEAD_S its lead. */
async function settlementBurst(stateDir: string, snapshot: Snapshot): Promise<GroupResult> {
  const lead_ms = Number(process.env.BENCH_BURST_LEAD_S ?? 30) * 1000;
  return withTimeout("settlement burst bench", BURST_LIMIT_MS, benchSettlementBurst({ port: await freePort(), stateDir, snapshot, ...burstSize(), lead_ms }));
}

/**
 * A fresh seeded state in `dir` (and a copy of it in `copyTo`, taken before any load) and a frozen
 * bundle of the Worker, with the build's dirty pages flushed so their write-back does not land on
 * the first bench.
 */
async function freshState(dir: string, copyTo?: string): Promise<Snapshot> {
  console.log(`\n== preparing ${dir} (remix build once per run, D1 migrations, demo seed)`);
  await withTimeout("prepare", 150_000, prepareState(dir));
  if (copyTo) {
    rmSync(copyTo, { recursive: true, force: true });
    cpSync(dir, copyTo, { recursive: true });
  }
  const snapshot = await withTimeout("snapshot", 60_000, snapshotWorker(`${dir}.snapshot`));
  execFileSync("sync");
  return snapshot;
}

/** The settlement burst alone, on a fresh seeded state and a frozen Worker (BENCH_BURST sets its size). */
async function burstGroup(): Promise<GroupResult> {
  const dir = `${STATE_DIR}-burst`;
  const snapshot = await freshState(dir);
  console.log(loadLine());
  return settlementBurst(dir, snapshot);
}

/**
 * Orders at the stack's limit (orders.ts), the app and its floor on one fresh seeded state, then
 * the 10,000-orders-due settlement burst on a copy taken before the load (so faster placement is
 * seen not to cost settlement).
 */
async function ordersGroup(): Promise<GroupResult> {
  const dir = `${STATE_DIR}-orders`;
  const burstDir = `${STATE_DIR}-orders-burst`;
  const snapshot = await freshState(dir, burstDir);
  const out = await benchOrdersAtLimit({ port: await freePort(), stateDir: dir, snapshot });
  if (process.env.BENCH_ORDERS_BURST === "0") return out;
  console.log(loadLine());
  const burst = await settlementBurst(burstDir, snapshot);
  return { rows: out.rows, verdicts: [...out.verdicts, ...burst.verdicts] };
}

/** One fresh seeded state and a frozen Worker, like the other groups; the chat bench on it. */
async function serviceGroup(): Promise<GroupResult> {
  const dir = `${STATE_DIR}-service`;
  const snapshot = await freshState(dir);
  const port = await freePort();
  let server: Server | undefined;
  try {
    server = await withTimeout("server start", 90_000, startServer({ port, stateDir: dir, skipPrepare: true, snapshot }));
    console.log(`wrangler dev ready on ${server.baseUrl} (pid ${server.pid}); ${loadLine()}`);
    const conversations = Number(process.env.BENCH_SERVICE_CONVERSATIONS ?? 200);
    return await withTimeout("service bench", 180_000, benchServiceChat(server, { conversations, rounds: 10 }));
  } finally {
    await stopAllServers();
    if (server) console.log(`\nwrangler dev (pid ${server.pid}) stopped`);
  }
}

function printSummary(results: { group: string; result: GroupResult }[]) {
  const rows = results.flatMap((r) => r.result.rows);
  console.log("\n== summary (ms)");
  if (rows.length) console.log(statsTable(rows));
  for (const { group, result } of results) {
    if (!result.verdicts.length) continue;
    console.log(`-- ${group}`);
    for (const line of result.verdicts) console.log(line);
  }
}

async function main() {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const unknown = wanted.filter((w) => !GROUPS.some((g) => g.name === w));
  if (unknown.length) throw new UsageError(`unknown bench group ${unknown.join(", ")}; known: ${GROUPS.map((g) => g.name).join(", ")}`);
  const groups = GROUPS.filter((g) => wanted.length === 0 || wanted.includes(g.name));

  // Hard stop: whatever hangs, the run ends within the budget and takes its servers with it.
  const limit = groups.reduce((s, g) => s + g.limit_ms, 0) + 10_000;
  const hardStop = setTimeout(() => {
    console.error(`\nbench: exceeded ${limit / 1000} s, giving up`);
    void stopAllServers().finally(() => process.exit(1));
  }, limit);
  hardStop.unref();

  const started = performance.now();
  console.log(`bench: node ${process.version}, ${process.platform}/${process.arch}; groups: ${groups.map((g) => g.name).join(", ")}`);
  console.log(`bench: ${loadLine()}`);
  const results: { group: string; result: GroupResult }[] = [];
  for (const g of groups) {
    const t0 = performance.now();
    console.log(`\n######## ${g.name}`);
    results.push({ group: g.name, result: await withTimeout(`${g.name} benches`, g.limit_ms, g.run()) });
    console.log(`${g.name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  printSummary(results);
  console.log(`bench: ${loadLine()}`);
  console.log(`total bench time ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return results;
}

try {
  const results = await main();
  // Figures with failed requests in them are not the figures asked for: fail the run. Rows
  // measured against a target (gate: false) print PASS/FAIL instead of failing the run.
  if (results.some((r) => r.result.rows.some((row) => row.gate !== false && row.errors > 0))) {
    console.error("bench: some requests did not answer as expected (see errors column)");
    process.exitCode = 1;
  }
} catch (err) {
  console.error("bench failed:", err instanceof UsageError ? err.message : err);
  await stopAllServers();
  process.exitCode = 1;
} finally {
  // Open sockets (WebSocket clients, keep-alive connections) must not keep the process alive.
  setTimeout(() => process.exit(), 2_000).unref();
}
