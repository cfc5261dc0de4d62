/**
 * Trade bench 1, tick fan-out, against `wrangler dev` (workerd) on 127.0.0.1: 1,000 WebSocket
 * clients on /ws/quotes/BTC-USDT, ~20 s of ticks, next to a bare Node `ws` broadcaster (the
 * floor). Its clients and analysis also serve the relay bench (fanout.ts).
 *
 * Every loop is bounded in count and in time; servers are stopped by the caller (run.ts) or
 * here, on every way out.
 */
import WebSocket, { WebSocketServer } from "ws";
import { ms, printServerLog, sleep, summarize, verdict, type GroupResult, type Server } from "./lib";

export type WsClient = {
  opened_at: number | null;
  closed_at: number | null;
  failed: string | null;
  ws: WebSocket;
  /** Tick `ts` values in arrival order, and Date.now() at each arrival. */
  ts: number[];
  recv: number[];
};

/** Opens one client; resolves once it is open or has failed (never rejects). */
export function openClient(url: string, timeout_ms: number): Promise<WsClient> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { handshakeTimeout: timeout_ms, perMessageDeflate: false });
    const c: WsClient = { opened_at: null, closed_at: null, failed: null, ws, ts: [], recv: [] };
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        resolve(c);
      }
    };
    ws.on("open", () => {
      c.opened_at = Date.now();
      finish();
    });
    ws.on("message", (data) => {
      const now = Date.now(); // first thing: the receipt time, before any parsing
      let m: { type?: string; ts?: number };
      try {
        m = JSON.parse(String(data));
      } catch {
        return;
      }
      if (m.type === "tick" && typeof m.ts === "number") {
        c.ts.push(m.ts);
        c.recv.push(now);
      }
    });
    ws.on("error", (err) => {
      if (c.opened_at === null) c.failed ??= err.message;
      finish();
    });
    ws.on("close", (code) => {
      c.closed_at ??= Date.now();
      if (c.opened_at === null) c.failed ??= `closed before open (${code})`;
      finish();
    });
  });
}

export async function closeAll(clients: WsClient[]) {
  const open = clients.filter((c) => c.ws.readyState === WebSocket.OPEN || c.ws.readyState === WebSocket.CONNECTING);
  const closed = Promise.all(open.map((c) => new Promise<void>((r) => (c.ws.readyState === WebSocket.CLOSED ? r() : c.ws.once("close", () => r())))));
  for (const c of open) c.ws.close(1000, "bench done");
  await Promise.race([closed, sleep(5_000)]);
  for (const c of clients) if (c.ws.readyState !== WebSocket.CLOSED) c.ws.terminate();
}

export async function benchTickFanout(server: Server, opts: { clients?: number; batch?: number; window_ms?: number } = {}): Promise<GroupResult> {
  const n = opts.clients ?? 1000;
  const batch = opts.batch ?? 100;
  const window_ms = opts.window_ms ?? 20_000;
  const url = `${server.baseUrl.replace(/^http/, "ws")}/ws/quotes/BTC-USDT`;
  console.log(`\n== 1. tick fan-out: ${n} WebSocket clients on ${url}, opened ${batch} at a time, ticks collected for ${window_ms / 1000} s`);
  console.log("   latency = Date.now() at receipt in Node - tick.ts; tick.ts is Date.now() in the QuoteHub when its alarm starts the");
  console.log("   beat, right before it stores the tick and broadcasts it (same machine clock, so no clock offset).");

  const clients: WsClient[] = [];
  const t0 = performance.now();
  const restartsBefore = server.restarts();
  const mark = server.logMark();
  try {
    for (let i = 0; i < n; i += batch) {
      const size = Math.min(batch, n - i);
      clients.push(...(await Promise.all(Array.from({ length: size }, () => openClient(url, 15_000)))));
    }
    const failed = clients.filter((c) => c.opened_at === null);
    console.log(`opened ${clients.length - failed.length}/${n} clients in ${((performance.now() - t0) / 1000).toFixed(1)} s${failed.length ? `, ${failed.length} failed (first: ${failed[0].failed})` : ""}`);

    // The window starts once every client is open, so every open client should see every tick in it.
    const T0 = Date.now();
    await sleep(window_ms);
    const T1 = Date.now();
    // Grace: a tick stamped just before T1 is still on its way.
    await sleep(1_500);
    const result = analyseFanout(clients, n, T0, T1, server.restarts() - restartsBefore);
    printServerLog(server, mark, "fan-out");
    await closeAll(clients);
    // The floor: the same clients, window and analysis against a bare Node `ws` broadcaster.
    const floor = await fanoutFloor(n, batch, window_ms);
    const hub = result.rows[0].stats;
    const base = floor.rows[0].stats;
    const ratio = hub.p99 / Math.max(1, base.p99);
    const v = verdict(ratio <= 2, `tick fan-out vs a bare Node ws broadcaster: p99 ${ms(hub.p99)} vs ${ms(base.p99)} ms (${ratio.toFixed(2)}x, target within 2x), p50 ${ms(hub.p50)} vs ${ms(base.p50)} ms`);
    console.log(v);
    return { rows: [...result.rows, ...floor.rows], verdicts: [...result.verdicts, v] };
  } finally {
    await closeAll(clients);
  }
}

/** A bare Node `ws` server that sends a tick to every client once a second: the fan-out floor. */
export async function fanoutFloor(n: number, batch: number, window_ms: number): Promise<FanoutResult> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  await new Promise<void>((r) => wss.once("listening", () => r()));
  const port = (wss.address() as { port: number }).port;
  const beat = setInterval(() => {
    const text = JSON.stringify({ type: "tick", symbol: "BTCUSDT", price: "1", ts: Date.now() });
    for (const c of wss.clients) c.send(text);
  }, 1000);
  console.log(`\n   floor: the same ${n} clients on a bare Node ws broadcaster (127.0.0.1:${port}), one tick a second`);
  const clients: WsClient[] = [];
  try {
    for (let i = 0; i < n; i += batch) clients.push(...(await Promise.all(Array.from({ length: Math.min(batch, n - i) }, () => openClient(`ws://127.0.0.1:${port}/`, 15_000)))));
    const T0 = Date.now();
    await sleep(window_ms);
    const T1 = Date.now();
    await sleep(1_500);
    const r = analyseFanout(clients, n, T0, T1, 0);
    r.rows[0].name = `floor: bare Node ws (${clients.length} clients)`;
    return r;
  } finally {
    clearInterval(beat);
    await closeAll(clients);
    await new Promise<void>((r) => wss.close(() => r()));
  }
}

/** A fan-out run: the rows and verdict, and what the capacity model reads. */
export type FanoutResult = GroupResult & { lost: number; failed: number; spread_p50_ms: number; opened: number };

export function analyseFanout(clients: WsClient[], n: number, T0: number, T1: number, restarts: number): FanoutResult {
  const inWindow = (ts: number) => ts >= T0 && ts <= T1;
  const opened = clients.filter((c) => c.opened_at !== null);
  const failed = n - opened.length;

  // Every tick any client saw in the window: the reference for "lost".
  const union = [...new Set(opened.flatMap((c) => c.ts.filter(inWindow)))].sort((a, b) => a - b);
  const latencies: number[] = [];
  const firstByTick = new Map<number, number>();
  const lastByTick = new Map<number, number>();
  let expected = 0;
  let received = 0;
  let lost = 0;
  let clientsWithLoss = 0;
  let outOfOrder = 0;
  let clientsOutOfOrder = 0;
  let droppedEarly = 0;
  const perClientReceived: number[] = [];
  for (const c of opened) {
    const from = Math.max(T0, c.opened_at!);
    const to = Math.min(T1, c.closed_at ?? Infinity);
    if (c.closed_at !== null && c.closed_at < T1) droppedEarly++;
    const mine = new Set(c.ts.filter((ts) => ts >= from && ts <= to));
    const want = union.filter((ts) => ts >= from && ts <= to);
    const missing = want.filter((ts) => !mine.has(ts)).length;
    expected += want.length;
    received += want.length - missing;
    perClientReceived.push(want.length - missing);
    lost += missing;
    if (missing) clientsWithLoss++;
    let ooo = 0;
    for (let k = 1; k < c.ts.length; k++) if (c.ts[k] <= c.ts[k - 1]) ooo++;
    outOfOrder += ooo;
    if (ooo) clientsOutOfOrder++;
    for (let k = 0; k < c.ts.length; k++) {
      if (!inWindow(c.ts[k])) continue;
      const lat = c.recv[k] - c.ts[k];
      latencies.push(lat);
      firstByTick.set(c.ts[k], Math.min(firstByTick.get(c.ts[k]) ?? Infinity, lat));
      lastByTick.set(c.ts[k], Math.max(lastByTick.get(c.ts[k]) ?? -Infinity, lat));
    }
  }
  const stats = summarize(latencies);
  const gaps = union.slice(1).map((ts, i) => ts - union[i]);
  const first = summarize([...firstByTick.values()]);
  const last = summarize([...lastByTick.values()]);
  const minPer = perClientReceived.length ? Math.min(...perClientReceived) : 0;
  const maxPer = perClientReceived.length ? Math.max(...perClientReceived) : 0;

  console.log(`window ${((T1 - T0) / 1000).toFixed(1)} s: ${union.length} distinct ticks (seen by any client); gaps between ticks: max ${gaps.length ? Math.max(...gaps) : "n/a"} ms, min ${gaps.length ? Math.min(...gaps) : "n/a"} ms`);
  console.log(`ticks per client: expected ${union.length} (fully connected), received min ${minPer} / max ${maxPer}`);
  console.log(`receipts: expected ${expected}, received ${received}, lost ${lost} (clients with a loss: ${clientsWithLoss})`);
  console.log(`out of order (ts not strictly increasing per client): ${outOfOrder} (clients: ${clientsOutOfOrder}); clients failed to connect: ${failed}; closed by the server during the window: ${droppedEarly}`);
  console.log(`latency over ${stats.n} receipts: p50 ${ms(stats.p50)} ms, p95 ${ms(stats.p95)} ms, p99 ${ms(stats.p99)} ms, max ${ms(stats.max)} ms, min ${ms(stats.min)} ms`);
  console.log(`per tick: first client after p50 ${ms(first.p50)} ms (max ${ms(first.max)}), last client after p50 ${ms(last.p50)} ms (max ${ms(last.max)}): spread = time to write ${opened.length} frames`);
  if (restarts) console.log(`WARNING: wrangler reloaded the Worker ${restarts} time(s) during this bench (a watched file changed): figures include it`);
  const ok = stats.p99 <= 50 && lost === 0 && failed === 0;
  const v = verdict(ok, `tick fan-out: p99 ${ms(stats.p99)} ms (target <= 50), lost ${lost} (target 0), failed connects ${failed}, out-of-order ${outOfOrder}`);
  console.log(v);
  return { rows: [{ name: `tick latency (${opened.length} ws clients)`, stats, errors: lost + failed, gate: false }], verdicts: [v], lost, failed, spread_p50_ms: last.p50 - first.p50, opened: opened.length };
}
