/**
 * Trade bench 3, `BENCH_BURST` orders (default 10,000) due in the same second: created through
 * the domain code before the server starts, then settled by the QuoteHub's beat; exactly-once
 * and the ledger checked.
 *
 * Every loop is bounded in count and in time; servers are stopped by the caller (run.ts) or
 * here, on every way out.
 */
import { Worker } from "node:worker_threads";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { getPlatformProxy } from "wrangler";
import WebSocket from "ws";
import { getDb, type Db } from "../../worker/db/client";
import type { Env } from "../../worker/env";
import { registerUser } from "../../worker/domain/identity/users";
import { platformAccount, userAccount } from "../../worker/domain/ledger/accounts";
import { checkLedger } from "../../worker/domain/ledger/check";
import { postTransfers, type Transfer } from "../../worker/domain/ledger/transfer";
import type { PlaceOrder } from "../../worker/domain/trades/order-check";
import { saveProduct } from "../../worker/domain/trades/products";
import type { PlaceBatch, PlaceBatchResult } from "./burst-worker";
import { ORDER_GROUP_MAX } from "../../durable-objects/quotes/order-intake";
import { dataOf, ms, pool, postJson, printServerLog, sleep, snapshotWorker, startServer, summarize, timedRequest, verdict, withTimeout, type GroupResult, type Snapshot } from "./lib";
import { USDT, PASSWORD, RUN, type BenchUser, hubStats } from "./traders";

const BEN = {
  symbol: "BEN/USDT",
  name: "Bench",
  feed_symbol: "BENUSDT",
  start_price_e8: 100 * 1e8,
  tick_size_e8: 1_000_000,
  fee_rate_bp: 100,
  quote_tolerance_bp: 50,
  trading_hours: "",
  enabled: true,
  sort: 99,
};

const durationOf = (seconds: number) => [{ seconds, profit_rate_bp: 8500, min_stake_micro: 1 * USDT, max_stake_micro: 1_000_000 * USDT }];

/** The calibration's market: its orders are due an hour later, long after the bench. */
const CAL = { ...BEN, symbol: "CAL/USDT", name: "Calibration", feed_symbol: "CALUSDT", sort: 98 };

/** BENCH_BURST: how many orders come due in the burst's second (default 10,000), 100 users' worth. */
export function burstSize(): { users: number; perUser: number } {
  const total = Number(process.env.BENCH_BURST ?? 10_000);
  if (!Number.isInteger(total) || total < 100 || total % 100 !== 0) throw new Error(`BENCH_BURST=${process.env.BENCH_BURST}: a multiple of 100 (100 users x n orders)`);
  return { users: 100, perUser: total / 100 };
}

type BurstSetup = { product_id: number; T: number; users: BenchUser[]; perUser: number };

/**
 * Phase A, before the app's server runs, on the same persisted state: the product, the users
 * and their money through the domain code in Node (getPlatformProxy), then the orders through
 * the domain's placeOrder in workerd (burst-worker.ts: see there why not through the proxy),
 * all with one fixed now_ms, so every delivery is the same second T.
 */
async function createBurst(stateDir: string, opts: { port: number; users: number; perUser: number; lead_ms: number; concurrency: number }): Promise<BurstSetup> {
  const seconds = 200;
  const probe = 300;
  // Each user's orders at 1 USDT and 1 % fee, twice over.
  const fund_micro = 2 * opts.perUser * USDT;
  const { product_id, cal_product_id, users, calibrationUser } = await withProxy(stateDir, async (db) => {
    const saved = await saveProduct(db, null, { ...BEN, durations: durationOf(seconds) }, "bench", Date.now());
    if (saved.status !== "ok") throw new Error(`bench market: ${saved.status}`);
    const product_id = saved.product.id;
    const cal = await saveProduct(db, null, { ...CAL, durations: durationOf(3600) }, "bench", Date.now());
    if (cal.status !== "ok") throw new Error(`calibration market: ${cal.status}`);
    const tUsers = performance.now();
    const users: BenchUser[] = [];
    for (let i = 0; i < opts.users + 1; i++) {
      // argon2id in Node, one at a time (synchronous CPU work): ~0.1-0.3 s each.
      const account = `s${RUN}u${i}`;
      const r = await registerUser(db, { account, password: PASSWORD, invite_code: "WELCOME", lang: null }, Date.now());
      if (r.status !== "ok") throw new Error(`registerUser ${account}: ${r.status}`);
      users.push({ id: r.user.id, account, token: r.token });
    }
    const calibrationUser = users.pop()!; // orders on the calibration market only
    // Money: twice what each user's orders take (n orders x (1 USDT + 1 % fee)), platform:deposits
    // -> available, as an approved deposit moves it.
    const fund = (u: BenchUser, amount_micro: number): Transfer => ({ key: `bench:${RUN}:fund:${u.id}`, debit: platformAccount("deposits"), credit: userAccount(u.id, "available"), amount_micro, code: "deposit", ref_type: "bench", ref_id: String(u.id) });
    for (let i = 0; i < users.length; i += 20) {
      const r = await postTransfers(db, users.slice(i, i + 20).map((u) => fund(u, fund_micro)), [], Date.now());
      if (r.status !== "ok") throw new Error(`funding: ${r.status}`);
    }
    const r = await postTransfers(db, [fund(calibrationUser, 4 * probe * USDT)], [], Date.now());
    if (r.status !== "ok") throw new Error(`funding: ${r.status}`);
    console.log(`product ${BEN.symbol} (id ${product_id}, ${seconds} s, min 1 USDT); ${users.length} (+1 for calibration) users through registerUser and funded with ${fund_micro / USDT} USDT through postTransfers in ${((performance.now() - tUsers) / 1000).toFixed(1)} s (getPlatformProxy)`);
    return { product_id, cal_product_id: cal.product.id, users, calibrationUser };
  });

  let T = 0;
  const helperSnapshot = await snapshotWorker(`${stateDir}.helper`, "tests/bench/burst-worker.ts");
  const helper = await withTimeout("burst worker start", 60_000, startServer({ port: opts.port, stateDir, skipPrepare: true, snapshot: helperSnapshot }));
  try {
    const place = async (batch: PlaceBatch): Promise<PlaceBatchResult> => {
      for (let attempt = 1; ; attempt++) {
        const r = await fetch(`${helper.baseUrl}/bench/place`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(batch), signal: AbortSignal.timeout(120_000) });
        if (r.ok) return (await r.json()) as PlaceBatchResult;
        const text = (await r.text()).slice(0, 200);
        // 503 is wrangler's dev proxy answering a POST whose connection to the Worker failed (a
        // reload, or a dropped connection under load). The keys make placeOrder idempotent, so
        // the same batch again only places what is missing.
        if (r.status !== 503 || attempt >= 3) throw new Error(`burst worker: HTTP ${r.status} ${text}`);
        console.log(`burst worker answered 503 (${text.slice(0, 60)}...), sending the same batch again`);
        await sleep(2_000);
      }
    };
    // Calibration: the same group writes on the calibration market (due an hour after the
    // bench, so never part of it) tell how long the burst's orders will take, before T has to
    // be fixed. The first round only warms the isolate up (JIT, first D1 statements); the
    // second is timed.
    let cal: PlaceBatchResult = { statuses: {}, ms: 0 };
    for (const round of ["warm", "cal"]) {
      const calNow = Date.now();
      cal = await place({ inputs: Array.from({ length: probe }, (_, k) => orderInput(calibrationUser.id, cal_product_id, 3600, k, round)), latest: { ts_ms: calNow - 500, price_e8: BEN.start_price_e8 }, now_ms: calNow, concurrency: opts.concurrency });
      if (cal.statuses.ok !== probe) throw new Error(`calibration: ${JSON.stringify(cal.statuses)}`);
    }
    const total = opts.users * opts.perUser;
    // A growing table and a busy machine: up to 2x the calibration's pace.
    const estimate_ms = (cal.ms / probe) * total * 2 + 2_000;
    T = Math.ceil((Date.now() + estimate_ms + opts.lead_ms) / 1000) * 1000;
    const now_ms = T - seconds * 1000;
    console.log(`calibration: ${ms(cal.ms / probe)} ms per order (groups of ${ORDER_GROUP_MAX}) in workerd (concurrency ${opts.concurrency}) -> ~${(estimate_ms / 1000).toFixed(0)} s for ${total}; T = ${new Date(T).toISOString()} (now + ${((T - Date.now()) / 1000).toFixed(0)} s); now_ms = T - ${seconds} s`);

    // The orders, user by user (ids, and so the settlement order, go user by user), in chunks.
    const latest = { ts_ms: now_ms - 500, price_e8: BEN.start_price_e8 };
    const inputs = users.flatMap((u) => Array.from({ length: opts.perUser }, (_, k) => orderInput(u.id, product_id, seconds, k, "o")));
    const chunks: PlaceOrder[][] = [];
    for (let i = 0; i < inputs.length; i += 2_000) chunks.push(inputs.slice(i, i + 2_000));
    const statuses = new Map<string, number>();
    const tOrders = performance.now();
    for (const chunk of chunks) {
      const r = await place({ inputs: chunk, latest, now_ms, concurrency: opts.concurrency });
      for (const [k, v] of Object.entries(r.statuses)) statuses.set(k, (statuses.get(k) ?? 0) + v);
    }
    const created_ms = performance.now() - tOrders;
    console.log(`placed ${statuses.get("ok") ?? 0}/${inputs.length} orders through checkOrder + writeOrders in ${(created_ms / 1000).toFixed(1)} s (${ms(created_ms / inputs.length)} ms each); statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    if ((statuses.get("ok") ?? 0) !== inputs.length) throw new Error("not every bench order was placed");
    if (helper.restarts()) console.log(`note: the helper Worker was reloaded ${helper.restarts()} time(s) (a watched file changed); batches were re-sent`);
  } finally {
    await helper.stop();
  }
  return { product_id, T, users, perUser: opts.perUser };
}

/**
 * getPlatformProxy on the bench's state, for the length of `fn`. Its workerd warns that the
 * Durable Object classes of wrangler.toml are not exported (true: the proxy runs no Worker
 * code, and nothing here uses them) and sometimes prints a bare stack on dispose: those lines
 * are dropped from the output; everything else goes through.
 */
async function withProxy<T>(stateDir: string, fn: (db: Db) => Promise<T>): Promise<T> {
  const noise = /workerd\/server\/server\.c\+\+:\d+: warning: A DurableObjectNamespace|alarm-scheduler\.c\+\+:\d+: warning: .*no such actor class|^stack: (\S*workerd@\w+\s*)+$/;
  const writes = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
      const kept = text.split("\n").filter((line) => !noise.test(line.trim())).join("\n");
      if (kept.trim() === "" && text.trim() !== "") return true;
      return write(kept, ...rest);
    }) as typeof stream.write;
    return () => (stream.write = write as typeof stream.write);
  });
  const log = process.env.WRANGLER_LOG;
  process.env.WRANGLER_LOG = "error";
  try {
    const { env, dispose } = await getPlatformProxy<Env>({ persist: { path: `${stateDir}/v3` } });
    try {
      return await fn(getDb(env.DB));
    } finally {
      await dispose();
    }
  } finally {
    if (log === undefined) delete process.env.WRANGLER_LOG;
    else process.env.WRANGLER_LOG = log;
    for (const restore of writes) restore();
  }
}

function orderInput(user_id: number, product_id: number, seconds: number, k: number, tag: string): PlaceOrder {
  return { user_id, product_id, direction: k % 2 === 0 ? "up" : "down", stake_micro: 1 * USDT, seconds, quote_price_e8: BEN.start_price_e8, request_key: `client:bench-${RUN}-${tag}-${k}` };
}

/** /ws/user with the user's session cookie; records when the user's first result notice arrives. */
function openUserChannel(base: string, u: BenchUser, notices: Map<BenchUser, number>, onNotice: (u: BenchUser) => void): Promise<WebSocket | null> {
  const cookie = `pl_session=${encodeURIComponent(btoa(JSON.stringify(u.token)))}`;
  return new Promise((resolve) => {
    const ws = new WebSocket(`${base.replace(/^http/, "ws")}/ws/user`, { headers: { cookie }, perMessageDeflate: false, handshakeTimeout: 15_000 });
    ws.on("open", () => resolve(ws));
    ws.on("message", (d) => {
      const now = Date.now();
      const m = JSON.parse(String(d)) as { type: string; order_id?: number; status?: string };
      if (m.type === "order" && m.status !== "open") {
        if (!notices.has(u)) notices.set(u, now);
        onNotice(u);
      }
    });
    ws.on("error", () => resolve(null));
  });
}

/** Open orders of a user, as the app shows them: `total` of /api/order/hold (one row asked). */
async function openCount(base: string, u: BenchUser): Promise<number> {
  // A long timeout: while the hub settles, the app may answer late; a late answer still counts.
  const r = await postJson(`${base}/api/order/hold`, { page_no: 1, row: 1 }, { token: u.token }, 60_000);
  return dataOf<{ total: number }>(`hold ${u.account}`, r).total;
}

export async function benchSettlementBurst(opts: { port: number; stateDir: string; snapshot: Snapshot; users?: number; perUser?: number; lead_ms?: number; concurrency?: number }): Promise<GroupResult> {
  const size = burstSize();
  const nUsers = opts.users ?? size.users;
  const perUser = opts.perUser ?? size.perUser;
  const total = nUsers * perUser;
  console.log(`\n== 3. burst size ${total}: ${total} orders (${nUsers} users x ${perUser}) due in the same second, settled by the ${BEN.symbol} QuoteHub`);

  const setup = await withTimeout("burst setup", burstSetupLimit_ms(total), createBurst(opts.stateDir, { port: opts.port, users: nUsers, perUser, lead_ms: opts.lead_ms ?? 30_000, concurrency: opts.concurrency ?? 8 }));
  const { T, users } = setup;

  // ---- phase B: the server settles them ----
  const t0 = performance.now();
  // Production's D1 limits held locally: an alarm past 1,000 queries would fail here as it would there.
  const server = await withTimeout("server start", 90_000, startServer({ port: opts.port, stateDir: opts.stateDir, skipPrepare: true, snapshot: opts.snapshot }));
  console.log(`wrangler dev up on ${server.baseUrl} in ${((performance.now() - t0) / 1000).toFixed(1)} s (pid ${server.pid}); T in ${((T - Date.now()) / 1000).toFixed(1)} s`);
  const base = server.baseUrl;
  const serverMark = server.logMark();
  let allSettledAt: number | null = null;
  let firstPollError: string | undefined;
  const zeroAt = new Map<BenchUser, number>();
  let polls = 0;
  let failedPolls = 0;
  let onNotice: (u: BenchUser) => void = () => {};
  let peakQueries: number | null = null;
  const probes = [
    { name: "GET /favicon.svg (static asset)", path: "/favicon.svg", samples: [] as { at: number; ms: number }[] },
    { name: "GET /api/health (Worker, no D1)", path: "/api/health", samples: [] as { at: number; ms: number }[] },
    { name: "GET /api/index/recharge_way (D1 read)", path: "/api/index/recharge_way", samples: [] as { at: number; ms: number }[] },
  ];
  const notices = new Map<BenchUser, number>();
  const userSockets: WebSocket[] = [];
  const ticks: number[] = [];
  let ws: WebSocket | null = null;
  try {
    // Starts the hub's beat (GET product -> hubFor -> ensure: alarm every second).
    const p = dataOf<{ price: string | null; quote_ts: number | null }>("product", await timedRequest(`${base}/api/index/product?id=${setup.product_id}`));
    console.log(`hub started: price ${p.price} at ${p.quote_ts ? new Date(p.quote_ts).toISOString() : "n/a"}`);
    // One watcher on the symbol's ticks: shows whether the beat stalls while it settles.
    ws = new WebSocket(`${base.replace(/^http/, "ws")}/ws/quotes/BEN-USDT`, { perMessageDeflate: false });
    ws.on("message", (d) => {
      const m = JSON.parse(String(d)) as { type: string; ts: number };
      if (m.type === "tick") ticks.push(m.ts);
    });
    ws.on("error", () => {});

    // Every user's channel, as their open page would have it (the session cookie the pages
    // use: Remix's unsigned cookie encoding of the token): the order notices show when each
    // order's result reached its owner, i.e. the settlement's progress as users see it.
    const channels = await pool(users, 20, (u) => openUserChannel(base, u, notices, (x) => onNotice(x)));
    userSockets.push(...channels.filter((c): c is WebSocket => c !== null));
    if (userSockets.length < users.length) console.log(`note: ${users.length - userSockets.length} user channels did not open`);

    const before = await pool(users, 20, (u) => openCount(base, u));
    const openBefore = before.reduce((s, x) => s + x, 0);
    console.log(`before T: ${openBefore} open orders over ${users.length} users (/api/order/hold totals)`);
    if (Date.now() > T - 1_000) console.log(`WARNING: the server was ready only ${((Date.now() - T) / 1000).toFixed(1)} s after T - 1 s; the figure below starts late`);

    await sleep(Math.max(0, T - 2_000 - Date.now()));
    // Is the rest of the app responsive meanwhile? Three probers, each one request at a time,
    // side by side: a static file (served by the assets layer before the Worker), a route
    // without D1 (/api/health) and a public route that reads D1 (/api/index/recharge_way).
    // The probers run in a thread of their own: what the bench client does meanwhile (100 user
    // sockets, the hold polls) must not count as the server's latency. The client's own
    // event-loop delay is printed beside them.
    const probing = probeInThread(base, T, probes.map((p) => p.path));
    const clientLag = monitorEventLoopDelay({ resolution: 10 });
    clientLag.enable();
    await sleep(Math.max(0, T - Date.now()));
    // Like an open page: a user's result notice makes it ask /api/order/hold again (the figure
    // is when the LAST user's answer shows no open order); a slow safety round (every 2 s, 4
    // requests at a time) asks the users still open, in case a notice was missed. Polling
    // every user all the time would load the server it measures.
    const inFlight = new Set<BenchUser>();
    const again = new Set<BenchUser>();
    const check = async (u: BenchUser): Promise<void> => {
      if (zeroAt.has(u)) return;
      if (inFlight.has(u)) {
        again.add(u);
        return;
      }
      inFlight.add(u);
      try {
        const open = await openCount(base, u);
        polls++;
        if (open === 0 && !zeroAt.has(u)) zeroAt.set(u, Date.now());
      } catch (err) {
        failedPolls++;
        firstPollError ??= String((err as Error)?.message ?? err).slice(0, 200);
      } finally {
        inFlight.delete(u);
        if (again.delete(u)) void check(u);
      }
    };
    onNotice = (u) => void check(u);
    const deadline = T + 60_000;
    while (zeroAt.size < users.length && Date.now() < deadline) {
      const roundAt = Date.now();
      await pool(
        users.filter((u) => !zeroAt.has(u) && !inFlight.has(u)),
        4,
        (u) => check(u),
      );
      await sleep(Math.max(50, roundAt + 2_000 - Date.now()));
    }
    if (zeroAt.size === users.length) allSettledAt = Math.max(...zeroAt.values());
    await sleep(1_500); // the watcher sees the beat after the burst too
    clientLag.disable();
    const lagged = await probing.stop();
    probes.forEach((p, i) => p.samples.push(...lagged[i]));
    console.log(`bench client's own event-loop delay meanwhile: p50 ${ms(clientLag.percentile(50) / 1e6)} ms, p99 ${ms(clientLag.percentile(99) / 1e6)} ms, max ${ms(clientLag.max / 1e6)} ms (the probers ran in their own thread)`);
    printServerLog(server, serverMark, "settlement burst");
    peakQueries = await hubPeakQueries(base, setup.product_id).catch((err) => {
      console.log(`hub stats unavailable: ${String((err as Error)?.message ?? err).slice(0, 120)}`);
      return null;
    });
    if (server.restarts()) console.log(`WARNING: wrangler reloaded the Worker ${server.restarts()} time(s) around T (a watched file changed): the settlement time includes it`);
    // The transparency log appends what the burst wrote: wait until its size holds still for 3 s.
    let size = -1;
    let still = 0;
    for (let i = 0; i < Math.min(240, (120 * total) / 10_000) && still < 6; i += 1) {
      const now = Number(((await timedRequest(`${base}/api/proof/checkpoint`)).body?.data as { tree_size?: number } | undefined)?.tree_size ?? 0);
      still = now === size ? still + 1 : 0;
      size = now;
      await sleep(500);
    }
    console.log(`transparency log: ${size} leaves signed after the burst`);
  } finally {
    ws?.terminate();
    for (const s of userSockets) s.terminate();
    await server.stop();
    console.log(`wrangler dev (pid ${server.pid}) stopped`);
  }

  // Users at zero, about once a second.
  const zeros = [...zeroAt.values()].sort((a, b) => a - b);
  const steps: string[] = [];
  for (let sec = 0; zeros.length && sec <= Math.ceil((zeros[zeros.length - 1] - T) / 1000); sec++) steps.push(`T+${sec}s: ${zeros.filter((z) => z <= T + sec * 1000).length}`);
  console.log(`users with no open order left (/api/order/hold after their notice): ${steps.join(", ")}`);
  console.log(`polls: ${polls} answered, ${failedPolls} failed${firstPollError ? ` (first: ${firstPollError})` : ""}`);
  // The beat: the largest gap between ticks around T shows whether settling stalled the feed
  // (the hub makes a passed second's tick between settlement batches).
  const around = ticks.filter((ts) => ts >= T - 5_000);
  let gap = { from: NaN, to: NaN };
  for (let i = 1; i < around.length; i++) if (!(around[i] - around[i - 1] <= gap.to - gap.from)) gap = { from: around[i - 1], to: around[i] };
  const rel = (t: number) => (Number.isFinite(t) ? `T${t >= T ? "+" : "-"}${(Math.abs(t - T) / 1000).toFixed(2)}s` : "n/a");
  console.log(`${BEN.symbol} beat (one WebSocket watcher): ${around.length} ticks from T-5s on; largest gap ${Number.isFinite(gap.from) ? gap.to - gap.from : "n/a"} ms, between the ticks of ${rel(gap.from)} and ${rel(gap.to)} (the beat is 1000 ms; while it settles, the hub makes the tick of a passed second between batches)`);

  let health_p99 = Infinity;
  let health_p50 = NaN;
  for (const { name, samples } of probes) {
    const during = samples.filter((p) => p.at >= 0 && (allSettledAt === null || p.at <= allSettledAt - T));
    const st = summarize(during.map((p) => p.ms).filter(Number.isFinite));
    const worst = during.reduce((w, p) => (p.ms > w.ms ? p : w), { at: NaN, ms: -1 });
    const failed = during.filter((p) => !Number.isFinite(p.ms)).length;
    if (name.includes("/api/health")) {
      health_p99 = failed ? Infinity : st.p99;
      health_p50 = st.p50;
    }
    console.log(`during the burst, ${name}: ${during.length} probes, p50 ${ms(st.p50)} ms, p99 ${ms(st.p99)} ms, max ${ms(st.max)} ms${worst.ms >= 0 ? ` (sent at T+${(worst.at / 1000).toFixed(2)}s)` : ""}${failed ? `, ${failed} failed` : ""}`);
  }
  const arrivals = [...notices.values()].sort((a, b) => a - b);
  if (arrivals.length) {
    const at = (q: number) => rel(arrivals[Math.max(0, Math.min(arrivals.length - 1, Math.ceil(q * arrivals.length) - 1))]);
    console.log(`result notices on the users' channels: ${arrivals.length}/${users.length} users; first ${at(0)}, 10% ${at(0.1)}, 50% ${at(0.5)}, 90% ${at(0.9)}, last ${at(1)}`);
  } else {
    console.log(`result notices on the users' channels: none received`);
  }

  // ---- phase C: verify through the domain code, server stopped ----
  const report = await withProxy(opts.stateDir, (db) => verifyBurst(db, T));

  const settle_s = allSettledAt === null ? null : (allSettledAt - T) / 1000;
  console.log(
    settle_s === null
      ? `NOT all settled within 60 s of T (${zeroAt.size}/${users.length} users at zero)`
      : `all ${total} settled ${settle_s.toFixed(2)} s after T (the last user's /api/order/hold answer with no open order); first user at zero after ${((zeros[0] - T) / 1000).toFixed(2)} s`,
  );
  console.log(`orders: ${report.orders} (${JSON.stringify(report.byStatus)}); transitions per order: exactly 1: ${report.once}, settled twice: ${report.twice}, never: ${report.never}; not final: ${report.notFinal}`);
  console.log(`delivery: ${report.sameSecond ? "every order at T" : "NOT all at T"}; settlement passes (distinct settled_at_ms): ${report.passes}, first at T+${report.firstPass_s} s, last at T+${report.lastPass_s} s`);
  console.log(`largest queries in one alarm: ${peakQueries ?? "n/a"} (the most any invocation of the hub's isolate made; D1 allows 1,000)`);
  console.log(`ledger: ${report.ledger.ok ? "ok" : "MISMATCH"} (${report.ledger.transfers} transfers, ${report.ledger.accounts} accounts, sum of balances ${report.ledger.balance_sum_micro}, drift ${report.ledger.drift.length}, negative ${report.ledger.negative_user_accounts.length})`);

  console.log(`ledger transfers of the burst's orders: ${report.stakes} stake transfers for ${report.orders} orders (one each: ${report.stakes === total ? "yes" : "NO"}), orders with more than one: ${report.doubleStakes}`);

  const exact = report.sameSecond && report.orders === total && report.once === total && report.twice === 0 && report.never === 0 && report.notFinal === 0 && report.stakes === total && report.doubleStakes === 0;
  // Issue 32: 100,000 in at most 10 s; 10,000 in 2 s as before (1 s per 10,000, never under 2 s).
  const target_s = Math.max(2, total / 10_000);
  const v1 = verdict(settle_s !== null && settle_s <= target_s, `settlement burst: ${total} orders settled ${settle_s === null ? "> 60" : settle_s.toFixed(2)} s after T (target <= ${target_s} s)`);
  const v2 = verdict(exact && report.ledger.ok, `settlement burst: exactly once: ${report.once}/${total} settled once, twice ${report.twice}, never ${report.never}, not final ${report.notFinal}, stake transfers ${report.stakes}/${total}, doubled ${report.doubleStakes}, ledger ${report.ledger.ok ? "ok" : "MISMATCH"}`);
  const v3 = verdict(health_p99 < 100, `settlement burst: /api/health p50 ${ms(health_p50)} ms, p99 ${Number.isFinite(health_p99) ? ms(health_p99) : "n/a"} ms while it settles (target p99 < 100 ms)`);
  const v4 = verdict(peakQueries !== null && peakQueries <= 1_000, `settlement burst: peak queries in one invocation ${peakQueries ?? "n/a"} (D1 allows 1,000)`);
  // Reported, not gated: the log catches up after the burst (decision 149).
  const lag = `settlement burst: transparency log checkpoint lag p50 ${ms(report.log.lag.p50)} ms, p99 ${ms(report.log.lag.p99)} ms, max ${ms(report.log.lag.max)} ms over ${report.log.leaves} leaves, ${report.log.unsigned} not yet signed when measured (reported, not gated)`;
  for (const line of [v1, v2, v3, v4, lag]) console.log(line);
  return { rows: [], verdicts: [v1, v2, v3, v4, lag] };
}

/** The setup's bound: users and calibration, then the orders (a few ms each on a busy machine) and the lead. */
export function burstSetupLimit_ms(total: number): number {
  return 220_000 + total * 3;
}

/** The whole bench's bound: the setup, then the burst itself, its checks and the log's catching up. */
export function burstLimit_ms(total: number): number {
  return burstSetupLimit_ms(total) + 110_000 + total;
}

/** The hub's largest D1 query count in one invocation. */
async function hubPeakQueries(base: string, product_id: number): Promise<number> {
  return (await hubStats(base, product_id)).peak_queries;
}

async function verifyBurst(db: Db, T: number) {
  const perOrder = await db.all<{ status: string; n: number; once: number; twice: number; never: number }>(sql`
    SELECT o.status AS status, COUNT(*) AS n,
      SUM(CASE WHEN COALESCE(t.n, 0) = 1 THEN 1 ELSE 0 END) AS once,
      SUM(CASE WHEN COALESCE(t.n, 0) > 1 THEN 1 ELSE 0 END) AS twice,
      SUM(CASE WHEN COALESCE(t.n, 0) = 0 THEN 1 ELSE 0 END) AS never
    FROM orders o
    LEFT JOIN (SELECT entity_id, COUNT(*) AS n FROM transitions WHERE entity = 'order' GROUP BY entity_id) t ON t.entity_id = o.id
    WHERE o.symbol = ${BEN.symbol}
    GROUP BY o.status`);
  const [passes] = await db.all<{ passes: number; first: number | null; last: number | null; deliveries: number; delivery: number }>(
    sql`SELECT COUNT(DISTINCT settled_at_ms) AS passes, MIN(settled_at_ms) AS first, MAX(settled_at_ms) AS last,
      COUNT(DISTINCT delivery_at_ms) AS deliveries, MIN(delivery_at_ms) AS delivery FROM orders WHERE symbol = ${BEN.symbol}`,
  );
  const ledger = await checkLedger(db);
  // Each order's stake leaves locked exactly once (every settlement moves it, whatever the outcome).
  const [stakes] = await db.all<{ stakes: number; doubled: number }>(sql`
    SELECT COALESCE(SUM(n), 0) AS stakes, COALESCE(SUM(CASE WHEN n > 1 THEN 1 ELSE 0 END), 0) AS doubled FROM (
      SELECT COUNT(*) AS n FROM ledger_transfers t JOIN orders o ON t.ref_type = 'order' AND t.ref_id = CAST(o.id AS TEXT)
      WHERE o.symbol = ${BEN.symbol} AND t.code IN ('trade_loss', 'trade_stake_return', 'trade_tie_refund', 'trade_void_refund') GROUP BY o.id)`);
  // Checkpoint lag: from a record's queueing (its write) to the first signed checkpoint that covers it.
  const lags = (
    await db.all<{ lag: number | null }>(sql`
      SELECT (SELECT MIN(c.created_at_ms) FROM log_checkpoints c WHERE c.tree_size > l.leaf_index) - q.created_at_ms AS lag
      FROM log_leaves l JOIN log_queue q ON q.seq = l.queue_seq WHERE q.created_at_ms >= ${T - 1000}`)
  ).map((r) => r.lag);
  const [{ unsigned }] = await db.all<{ unsigned: number }>(sql`SELECT COUNT(*) AS unsigned FROM log_queue q WHERE q.created_at_ms >= ${T - 1000} AND NOT EXISTS (SELECT 1 FROM log_leaves l WHERE l.queue_seq = q.seq)`);
  const log = { leaves: lags.length, unsigned: Number(unsigned), lag: summarize(lags.filter((x): x is number => x !== null)) };
  const sum = (k: "n" | "once" | "twice" | "never") => perOrder.reduce((s, r) => s + (r[k] ?? 0), 0);
  return {
    orders: sum("n"),
    byStatus: Object.fromEntries(perOrder.map((r) => [r.status, r.n])),
    once: sum("once"),
    twice: sum("twice"),
    never: sum("never"),
    notFinal: perOrder.filter((r) => !["won", "lost", "tie", "void"].includes(r.status)).reduce((s, r) => s + r.n, 0),
    passes: passes?.passes ?? 0,
    sameSecond: passes?.deliveries === 1 && passes.delivery === T,
    firstPass_s: passes?.first == null ? "n/a" : ((passes.first - T) / 1000).toFixed(2),
    lastPass_s: passes?.last == null ? "n/a" : ((passes.last - T) / 1000).toFixed(2),
    ledger,
    stakes: Number(stakes?.stakes ?? 0),
    doubleStakes: Number(stakes?.doubled ?? 0),
    log,
  };
}

/**
 * Probes in a worker thread: each path one request at a time, every 50 ms (a burst that
 * settles in under a second still gets a p99 worth reading), timed there. `stop` ends them and
 * answers the samples per path ({at: sent - T, ms}, NaN for a failure or a 5xx).
 */
function probeInThread(base: string, T: number, paths: string[]) {
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    const { base, T, paths } = workerData;
    let on = true;
    const samples = paths.map(() => []);
    parentPort.on("message", () => { on = false; });
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    Promise.all(paths.map(async (path, i) => {
      while (on) {
        const sent = Date.now();
        const start = performance.now();
        try {
          const res = await fetch(base + path, { signal: AbortSignal.timeout(60000) });
          await res.text();
          samples[i].push({ at: sent - T, ms: res.status < 500 ? performance.now() - start : NaN });
        } catch {
          samples[i].push({ at: sent - T, ms: NaN });
        }
        await sleep(Math.max(0, sent + 50 - Date.now()));
      }
    })).then(() => parentPort.postMessage(samples));
  `;
  const worker = new Worker(code, { eval: true, workerData: { base, T, paths } });
  // A bench that fails midway must still exit.
  worker.unref();
  const done = new Promise<{ at: number; ms: number }[][]>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return {
    stop: async () => {
      worker.postMessage("stop");
      const samples = await done;
      await worker.terminate();
      return samples;
    },
  };
}
