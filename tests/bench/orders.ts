/**
 * `npm run bench -- orders`: placing orders at the stack's limit (issue "orders at the stack's
 * limit"), against the stack's own floor, in one run on the same state and the same load:
 *
 *   1. the app: 200 users in closed loops on `/api/health`, then on `/api/order/addorder`;
 *   2. the floor (floor-worker.ts: a bare Worker and one object that caches sessions and
 *      group-commits orders in ONE batch of three hand-written set statements, floor-statements.ts,
 *      the same rows the app writes) on the same persisted state, same users, same loops: its
 *      `/api/health` and its `/api/order/addorder`;
 *
 * then PASS or FAIL against the targets: our order rate >= 85% of the floor's, our order p50
 * <= 1.15x the floor's order p50, our health p50 <= 1.3x the bare Worker's, no errors. run.ts runs
 * the 10,000-orders-due settlement burst after it (settlement-burst.ts), so faster placement does not cost
 * settlement.
 */
import { clientIp, closedLoop, groupCpu_ms, loadLine, ms, postJson, printServerLog, snapshotWorker, startServer, statsTable, stopAllServers, summarize, timedRequest, verdict, withTimeout, type GroupResult, type Row, type Server, type Snapshot } from "./lib";
import { fundedTraders, hubStats, type Traders } from "./traders";
import type { HubStats } from "../../durable-objects/quotes/hub-api";

const RUN = Date.now().toString(36).slice(-6);

type Loops = { orders: Awaited<ReturnType<typeof closedLoop>>; health: Awaited<ReturnType<typeof closedLoop>>; order_cpu_ms: number };

/** Health, then orders, each `duration_ms` of `traders.users.length` closed loops. */
async function loops(server: Server, t: Traders, price: () => string, tag: string, duration_ms: number): Promise<Loops> {
  const base = server.baseUrl;
  const n = t.users.length;
  // Each loop alternates up and down, so the market's open exposure stays balanced.
  const order = (w: number, k: number | "warm") =>
    // Each simulated user from their own address, as real users are: the hub limits orders per network (decision 124).
    postJson(`${base}/api/order/addorder`, { product_id: t.btc.id, direction: k === "warm" || k % 2 === 0 ? "up" : "down", amount: t.amount, seconds: 300, quote_price: price(), client_order_id: `o-${RUN}-${tag}-${w}-${k}` }, { token: t.users[w].token, ...clientIp(w) });
  // Warm-up (not measured): the first requests pay for compiling code paths and loading caches.
  for (let i = 0; i < 20; i++) await timedRequest(`${base}/api/health`);
  await Promise.all(t.users.map((_, w) => order(w, "warm")));
  const health = await closedLoop(n, duration_ms, () => timedRequest(`${base}/api/health`));
  const cpu_before_ms = groupCpu_ms(server.pid);
  const orders = await closedLoop(n, duration_ms, (w, k) => order(w, k + 1));
  return { orders, health, order_cpu_ms: groupCpu_ms(server.pid) - cpu_before_ms };
}

const errorsOf = (r: Loops["orders"]) => [...r.errors.values()].reduce((s, x) => s + x, 0);
const rateOf = (r: Loops["orders"]) => r.ok / (r.elapsed_ms / 1000);
/** The server's CPU (all its threads) per order placed in the loop: steadier than the rate when the machine is shared. */
const cpuPerOrder_ms = (r: Loops) => r.order_cpu_ms / Math.max(1, r.orders.ok);

export async function benchOrdersAtLimit(opts: { port: number; stateDir: string; snapshot: Snapshot; users?: number; duration_ms?: number }): Promise<GroupResult> {
  const nUsers = opts.users ?? 200;
  const duration_ms = opts.duration_ms ?? 15_000;
  console.log(`\n== orders at the stack's limit: ${nUsers} users in closed loops, ${duration_ms / 1000} s each on health and addorder, the app then its floor`);

  // ---- the app ----
  let traders: Traders;
  let ours: Loops;
  let price = "0";
  let groups: HubStats;
  {
    const server = await withTimeout("server start", 90_000, startServer({ port: opts.port, stateDir: opts.stateDir, skipPrepare: true, snapshot: opts.snapshot }));
    try {
      traders = await withTimeout("users", 240_000, fundedTraders(server.baseUrl, nUsers, 8));
      price = traders.btc.price ?? "0";
      let polling = true;
      // One poller, once a second: the quote a page shows before the user commits.
      const poller = (async () => {
        while (polling) {
          const r = await timedRequest(`${server.baseUrl}/api/index/product?id=${traders.btc.id}`).catch(() => null);
          const p = (r?.body?.data as { price?: string | null } | null)?.price;
          if (r?.body?.code === 1 && p) price = p;
          await new Promise((res) => setTimeout(res, 1_000));
        }
      })();
      const mark = server.logMark();
      try {
        console.log(loadLine());
        ours = await withTimeout("app loops", 4 * duration_ms + 60_000, loops(server, traders, () => price, "app", duration_ms));
        groups = await hubStats(server.baseUrl, traders.btc.id);
        printServerLog(server, mark, "app under load");
        if (server.restarts()) console.log(`WARNING: the server restarted ${server.restarts()} time(s) during the app's loops`);
      } finally {
        polling = false;
        await poller;
      }
    } finally {
      await stopAllServers();
    }
  }

  // ---- the floor, on the same state: the same users, sessions and product ----
  const floorSnapshot = await withTimeout("floor snapshot", 60_000, snapshotWorker(`${opts.stateDir}.floor-snapshot`, "tests/bench/floor-worker.ts"));
  let floor: Loops;
  {
    const server = await withTimeout("floor start", 90_000, startServer({ port: opts.port, stateDir: opts.stateDir, skipPrepare: true, snapshot: floorSnapshot }));
    try {
      console.log(loadLine());
      floor = await withTimeout("floor loops", 4 * duration_ms + 60_000, loops(server, traders, () => price, "floor", duration_ms));
    } finally {
      await stopAllServers();
    }
  }

  const rows: Row[] = [
    { name: `app POST /api/order/addorder (${nUsers} loops)`, stats: summarize(ours.orders.ms), errors: errorsOf(ours.orders), gate: false },
    { name: `app GET /api/health (${nUsers} loops)`, stats: summarize(ours.health.ms), errors: errorsOf(ours.health), gate: false },
    { name: `floor POST /api/order/addorder (${nUsers} loops)`, stats: summarize(floor.orders.ms), errors: errorsOf(floor.orders), gate: false },
    { name: `bare Worker GET /api/health (${nUsers} loops)`, stats: summarize(floor.health.ms), errors: errorsOf(floor.health), gate: false },
  ];
  console.log(statsTable(rows));
  for (const [who, r] of [["app", ours], ["floor", floor]] as const) {
    console.log(`${who}: ${r.orders.ok} orders in ${(r.orders.elapsed_ms / 1000).toFixed(1)} s -> ${rateOf(r.orders).toFixed(1)} orders/s, ${cpuPerOrder_ms(r).toFixed(3)} ms of the server's CPU an order; health ${(r.health.ms.length / (r.health.elapsed_ms / 1000)).toFixed(1)} requests/s`);
    for (const [reason, count] of [...r.orders.errors, ...r.health.errors]) console.log(`  ${who} error x${count}: ${reason}`);
  }

  console.log(
    `app's BTC/USDT hub: ${groups.orders_grouped} orders in ${groups.order_groups} group commits (${(groups.orders_grouped / Math.max(1, groups.order_groups)).toFixed(1)} a group), ${(groups.order_write_ms / Math.max(1, groups.order_groups)).toFixed(1)} ms a group write under this load -> ${((groups.orders_grouped / Math.max(1, groups.order_write_ms)) * 1000).toFixed(0)} orders per second of write time`,
  );
  const [appOrder, appHealth, floorOrder, bareHealth] = rows.map((r) => r.stats);
  const rateRatio = rateOf(ours.orders) / rateOf(floor.orders);
  const orderToFloor = appOrder.p50 / floorOrder.p50;
  const healthToBare = appHealth.p50 / bareHealth.p50;
  const errors = rows.reduce((s, r) => s + r.errors, 0);
  const verdicts = [
    verdict(rateRatio >= 0.85, `orders: rate app ${rateOf(ours.orders).toFixed(1)} orders/s vs floor ${rateOf(floor.orders).toFixed(1)} orders/s = ${(rateRatio * 100).toFixed(0)}% (target >= 85%)`),
    verdict(orderToFloor <= 1.15, `orders: order p50 app ${ms(appOrder.p50)} ms vs floor ${ms(floorOrder.p50)} ms = ${orderToFloor.toFixed(2)}x (target <= 1.15x; p99 ${ms(appOrder.p99)} vs ${ms(floorOrder.p99)} ms)`),
    verdict(healthToBare <= 1.3, `orders: app health p50 ${ms(appHealth.p50)} ms / bare Worker health p50 ${ms(bareHealth.p50)} ms = ${healthToBare.toFixed(2)}x (target <= 1.3x)`),
    verdict(errors === 0, `orders: errors ${errors} (target 0)`),
  ];
  console.log(`orders: the server's CPU an order, floor / app = ${cpuPerOrder_ms(floor).toFixed(3)} / ${cpuPerOrder_ms(ours).toFixed(3)} ms = ${((100 * cpuPerOrder_ms(floor)) / Math.max(1e-9, cpuPerOrder_ms(ours))).toFixed(0)}% (reported, not gated: the same work measured without the machine's other load)`);
  for (const v of verdicts) console.log(v);
  return { rows, verdicts };
}
