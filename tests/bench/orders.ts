/**
 * `npm run bench -- orders`: placing orders at the stack's limit (issue "orders at the stack's
 * limit"), against the stack's own floor, in one run on the same state and the same load, in
 * rounds measured back to back (BENCH_ORDERS_PAIRS, default 3; each side's loops
 * BENCH_ORDERS_SECONDS, default 6 s), each on a fresh server:
 *
 *   1. the app: 200 users in closed loops on `/api/health`, then on `/api/order/addorder`;
 *   2. the floor (floor-worker.ts: a bare Worker and one object that caches sessions and
 *      group-commits orders in ONE batch of three hand-written set statements, floor-statements.ts,
 *      the same rows the app writes, and wakes the log's sequencer after each group as the app's
 *      hub does) on the same persisted state, same users, same loops;
 *   3. the bare floor: the same floor with its leaves left waiting in the log's inbox (reported).
 *
 * The app and the floor alternate which goes first; the bare floor goes last. Then PASS or FAIL
 * against the targets, each the median over the rounds of the round's own ratio (decision 168):
 * our order rate >= 85% of the floor's, our order p50 <= 1.15x the floor's order p50, our health
 * p50 <= 1.3x the bare Worker's, no errors. run.ts runs the 10,000-orders-due settlement burst
 * after it (settlement-burst.ts), so faster placement does not cost settlement.
 */
import { clientIp, closedLoop, groupCpu_ms, loadLine, ms, postJson, printServerLog, snapshotWorker, startServer, statsTable, stopAllServers, summarize, timedRequest, verdict, withTimeout, type GroupResult, type Row, type Server, type Snapshot } from "./lib";
import { fundedTraders, hubStats, type Traders } from "./traders";
import type { HubStats } from "../../durable-objects/quotes/hub-api";

const RUN = Date.now().toString(36).slice(-6);

type Loops = { orders: Awaited<ReturnType<typeof closedLoop>>; health: Awaited<ReturnType<typeof closedLoop>>; order_cpu_ms: number };

/**
 * Waits (at most 60 s) until the server's transparency log has appended every leaf in its inbox,
 * the bare floor's included (it writes inbox rows and never appends them): each side's loops
 * then pay for their own leaves, not for the side measured before them. Answers the wait.
 */
async function logDrained(server: Server, who: "app" | "floor"): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 60_000) {
    const r = await timedRequest(`${server.baseUrl}${who === "app" ? "/api/health/ready" : "/bench/log-backlog"}`).catch(() => null);
    const data = r?.body?.data as { checks?: { name: string; value: number }[]; waiting?: number } | null;
    const waiting = who === "app" ? data?.checks?.find((c) => c.name === "log_backlog")?.value : data?.waiting;
    if (waiting === 0) return Date.now() - started;
    await new Promise((res) => setTimeout(res, 250));
  }
  throw new Error(`the ${who}'s log still had leaves waiting after 60 s`);
}

/** Health, then orders, each `duration_ms` of `traders.users.length` closed loops, after a warm-up. */
async function loops(server: Server, t: Traders, price: () => string, tag: string, duration_ms: number, afterWarmUp: () => Promise<void> = async () => undefined): Promise<Loops> {
  const base = server.baseUrl;
  const n = t.users.length;
  // Each loop alternates up and down, so the market's open exposure stays balanced.
  const order = (w: number, k: number | "warm") =>
    // Each simulated user from their own address, as real users are: the hub limits orders per network (decision 124).
    postJson(`${base}/api/order/addorder`, { product_id: t.btc.id, direction: k === "warm" || k % 2 === 0 ? "up" : "down", amount: t.amount, seconds: 300, quote_price: price(), client_order_id: `o-${RUN}-${tag}-${w}-${k}` }, { token: t.users[w].token, ...clientIp(w) });
  // Warm-up (not measured): the first requests pay for compiling code paths and loading caches,
  // the more of it the more code a path runs (a fresh server each side of each round).
  await closedLoop(n, 1_500, () => timedRequest(`${base}/api/health`));
  await Promise.all(t.users.map((_, w) => order(w, "warm")));
  await afterWarmUp();
  const health = await closedLoop(n, duration_ms, () => timedRequest(`${base}/api/health`));
  const cpu_before_ms = groupCpu_ms(server.pid);
  const orders = await closedLoop(n, duration_ms, (w, k) => order(w, k + 1));
  return { orders, health, order_cpu_ms: groupCpu_ms(server.pid) - cpu_before_ms };
}

const errorsOf = (r: Loops["orders"]) => [...r.errors.values()].reduce((s, x) => s + x, 0);
const rateOf = (r: Loops["orders"]) => r.ok / (r.elapsed_ms / 1000);
/** The server's CPU (all its threads) per order placed in the loop: steadier than the rate when the machine is shared. */
const cpuPerOrder_ms = (r: Loops) => r.order_cpu_ms / Math.max(1, r.orders.ok);

/** How many app-and-floor pairs a run measures (BENCH_ORDERS_PAIRS, default 3), each side `duration_ms` on health then orders. */
const PAIRS = Math.max(1, Number(process.env.BENCH_ORDERS_PAIRS ?? 3));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The sides of a pair: the app, its floor (the same rows and the same log leaves), and the bare floor (its leaves left waiting). */
type Side = "app" | "floor" | "bare";
/** One pair's figures, measured back to back. */
type Pair = Record<Side, Loops> & { rate: number; order_p50: number; health_p50: number; bare_rate: number; bare_order_p50: number };

export async function benchOrdersAtLimit(opts: { port: number; stateDir: string; snapshot: Snapshot; users?: number; duration_ms?: number }): Promise<GroupResult> {
  const nUsers = opts.users ?? 200;
  // BENCH_ORDERS_SECONDS: each side's loops (default 6 s each on health and on orders).
  const duration_ms = opts.duration_ms ?? Number(process.env.BENCH_ORDERS_SECONDS ?? 6) * 1000;
  console.log(
    `\n== orders at the stack's limit: ${nUsers} users in closed loops; the app, its floor and the bare floor in ${PAIRS} rounds back to back (the app and the floor alternate which goes first), each side ${duration_ms / 1000} s on health then on addorder`,
  );

  let traders: Traders | null = null;
  let price = "0";
  const groups: HubStats = { peak_queries: 0, order_groups: 0, orders_grouped: 0, order_write_ms: 0 };
  const floorSnapshot = await withTimeout("floor snapshot", 60_000, snapshotWorker(`${opts.stateDir}.floor-snapshot`, "tests/bench/floor-worker.ts"));

  /** One side's loops on its own server (the app, or the floor on the same state: the same users, sessions and product). */
  const side = async (who: Side, pair: number): Promise<Loops> => {
    const server = await withTimeout(`${who} start`, 90_000, startServer({ port: opts.port, stateDir: opts.stateDir, skipPrepare: true, snapshot: who === "app" ? opts.snapshot : floorSnapshot, vars: who === "bare" ? { FLOOR_LOG: "off" } : {} }));
    let polling = true;
    let poller: Promise<void> = Promise.resolve();
    try {
      // The users are registered and funded through the app once, before the first round.
      traders ??= await withTimeout("users", 240_000, fundedTraders(server.baseUrl, nUsers, 8));
      const t = traders;
      if (who === "app") {
        price = t.btc.price ?? price;
        // One poller, once a second: the quote a page shows before the user commits (the floors take the last one).
        poller = (async () => {
          while (polling) {
            const r = await timedRequest(`${server.baseUrl}/api/index/product?id=${t.btc.id}`).catch(() => null);
            const p = (r?.body?.data as { price?: string | null } | null)?.price;
            if (r?.body?.code === 1 && p) price = p;
            await new Promise((res) => setTimeout(res, 1_000));
          }
        })();
      }
      const mark = server.logMark();
      console.log(`round ${pair + 1}, ${who}: ${loadLine()}`);
      // The warm-up's orders wake the log, which then appends what waits (see logDrained).
      const drained = who === "bare" ? undefined : async () => console.log(`round ${pair + 1}, ${who}: the log's inbox empty ${(await logDrained(server, who)) / 1000} s after the warm-up`);
      const r = await withTimeout(`${who} loops`, 4 * duration_ms + 120_000, loops(server, t, () => price, `${who}${pair}`, duration_ms, drained));
      if (who === "app") {
        const g = await hubStats(server.baseUrl, t.btc.id);
        groups.order_groups += g.order_groups;
        groups.orders_grouped += g.orders_grouped;
        groups.order_write_ms += g.order_write_ms;
        groups.peak_queries = Math.max(groups.peak_queries, g.peak_queries);
        printServerLog(server, mark, `app under load (round ${pair + 1})`);
      }
      if (server.restarts()) console.log(`WARNING: the ${who}'s server restarted ${server.restarts()} time(s) during its loops`);
      return r;
    } finally {
      polling = false;
      await poller;
      await stopAllServers();
    }
  };

  // Back to back, the app and its floor alternating which goes first: a machine that speeds up or
  // slows down over the run (another tenant's load on a shared host) moves both sides alike. The
  // bare floor goes last; the next side's wait appends the leaves it left.
  const pairs: Pair[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const order: Side[] = i % 2 === 0 ? ["app", "floor", "bare"] : ["floor", "app", "bare"];
    const got: Partial<Record<Side, Loops>> = {};
    for (const who of order) got[who] = await side(who, i);
    const { app, floor, bare } = got as Record<Side, Loops>;
    const p: Pair = {
      app,
      floor,
      bare,
      rate: rateOf(app.orders) / rateOf(floor.orders),
      order_p50: summarize(app.orders.ms).p50 / summarize(floor.orders.ms).p50,
      health_p50: summarize(app.health.ms).p50 / summarize(floor.health.ms).p50,
      bare_rate: rateOf(app.orders) / rateOf(bare.orders),
      bare_order_p50: summarize(app.orders.ms).p50 / summarize(bare.orders.ms).p50,
    };
    pairs.push(p);
    console.log(
      `round ${i + 1}: orders app ${rateOf(app.orders).toFixed(1)}/s, floor ${rateOf(floor.orders).toFixed(1)}/s (${(p.rate * 100).toFixed(0)}%), bare floor ${rateOf(bare.orders).toFixed(1)}/s (${(p.bare_rate * 100).toFixed(0)}%); order p50 ${p.order_p50.toFixed(2)}x the floor's; health p50 ${p.health_p50.toFixed(2)}x the bare Worker's; the server's CPU an order app ${cpuPerOrder_ms(app).toFixed(3)}, floor ${cpuPerOrder_ms(floor).toFixed(3)}, bare ${cpuPerOrder_ms(bare).toFixed(3)} ms`,
    );
  }

  const all = (pick: (p: Pair) => Loops["orders"]) => {
    const runs = pairs.map(pick);
    return { ms: runs.flatMap((r) => r.ms), errors: runs.reduce((s, r) => s + errorsOf(r), 0) };
  };
  const loopsOf: [string, (p: Pair) => Loops["orders"]][] = [
    [`app POST /api/order/addorder (${nUsers} loops)`, (p) => p.app.orders],
    [`app GET /api/health (${nUsers} loops)`, (p) => p.app.health],
    [`floor POST /api/order/addorder (${nUsers} loops)`, (p) => p.floor.orders],
    [`bare Worker GET /api/health (${nUsers} loops)`, (p) => p.floor.health],
    [`bare floor POST /api/order/addorder (${nUsers} loops)`, (p) => p.bare.orders],
  ];
  const rows: Row[] = loopsOf.map(([name, pick]) => {
    const a = all(pick);
    return { name, stats: summarize(a.ms), errors: a.errors, gate: false };
  });
  console.log(statsTable(rows));
  for (const who of ["app", "floor", "bare"] as const) {
    for (const r of pairs.map((p) => p[who])) for (const [reason, count] of [...r.orders.errors, ...r.health.errors]) console.log(`  ${who} error x${count}: ${reason}`);
  }

  console.log(
    `app's BTC/USDT hub: ${groups.orders_grouped} orders in ${groups.order_groups} group commits (${(groups.orders_grouped / Math.max(1, groups.order_groups)).toFixed(1)} a group), ${(groups.order_write_ms / Math.max(1, groups.order_groups)).toFixed(1)} ms a group write under this load -> ${((groups.orders_grouped / Math.max(1, groups.order_write_ms)) * 1000).toFixed(0)} orders per second of write time`,
  );
  // Each figure is the median over the rounds of the round's own ratio.
  const med = (f: (p: Pair) => number) => median(pairs.map(f));
  const list = (f: (p: Pair) => number, pct = false) => pairs.map((p) => (pct ? `${(f(p) * 100).toFixed(0)}%` : `${f(p).toFixed(2)}x`)).join(", ");
  const errors = rows.reduce((s, r) => s + r.errors, 0);
  const verdicts = [
    verdict(med((p) => p.rate) >= 0.85, `orders: rate app / floor, median of ${PAIRS} rounds = ${(med((p) => p.rate) * 100).toFixed(0)}% (rounds ${list((p) => p.rate, true)}; target >= 85%)`),
    verdict(med((p) => p.order_p50) <= 1.15, `orders: order p50 app / floor, median of ${PAIRS} rounds = ${med((p) => p.order_p50).toFixed(2)}x (rounds ${list((p) => p.order_p50)}; target <= 1.15x)`),
    verdict(med((p) => p.health_p50) <= 1.3, `orders: health p50 app / bare Worker, median of ${PAIRS} rounds = ${med((p) => p.health_p50).toFixed(2)}x (rounds ${list((p) => p.health_p50)}; target <= 1.3x)`),
    verdict(errors === 0, `orders: errors ${errors} (target 0)`),
  ];
  console.log(
    `orders (reported, not gated): against the bare floor, whose leaves never reach the log, rate ${(med((p) => p.bare_rate) * 100).toFixed(0)}% (rounds ${list((p) => p.bare_rate, true)}) and order p50 ${med((p) => p.bare_order_p50).toFixed(2)}x; the server's CPU an order, floor / app ${(med((p) => cpuPerOrder_ms(p.floor) / cpuPerOrder_ms(p.app)) * 100).toFixed(0)}%, bare floor / app ${(med((p) => cpuPerOrder_ms(p.bare) / cpuPerOrder_ms(p.app)) * 100).toFixed(0)}%`,
  );
  for (const v of verdicts) console.log(v);
  return { rows, verdicts };
}
