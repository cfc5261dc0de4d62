/**
 * `npm run bench -- fanout`: one symbol's ticks to 1,000, 5,000 and 10,000 sockets through the
 * server `npm start` runs, directly from the QuoteHub (QUOTE_RELAYS=0) and through 4 relays,
 * each next to a bare Node `ws` broadcaster with the same client in the same run. Prints sockets
 * open, ticks lost, p50 and p99, both ratios to the floor, and the client's own event-loop delay
 * (a saturated client shows there, not as server latency), then the measured inputs of the
 * capacity model (decision 103).
 *
 * BENCH_FANOUT_SIZES (default 1000,5000,10000), BENCH_FANOUT_RELAYS (default 0,4),
 * BENCH_FANOUT_WINDOW_S (default 10).
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { closeAll, fanoutFloor, analyseFanout, openClient, type FanoutResult, type WsClient } from "./tick-fanout";
import { freePort, loadLine, ms, prepareState, sleep, snapshotWorker, startServer, stopAllServers, table, verdict, type GroupResult } from "./lib";

const BATCH = 200;

type Run = { n: number; mode: string; r: FanoutResult; lag_p99_ms: number; health?: { p99_ms: number; failed: number; n: number } };

async function measure(url: string, n: number, window_ms: number): Promise<{ r: FanoutResult; lag_p99_ms: number; health: { p99_ms: number; failed: number; n: number } }> {
  const clients: WsClient[] = [];
  try {
    for (let i = 0; i < n; i += BATCH) clients.push(...(await Promise.all(Array.from({ length: Math.min(BATCH, n - i) }, () => openClient(url, 30_000)))));
    // Let the last batch's greetings settle before the window opens.
    await sleep(1_000);
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    // Does the server answer meanwhile? /api/health once a second through the window (often
    // enough to see it stop, rarely enough not to be the load).
    const healthUrl = url.replace(/^ws/, "http").replace(/\/ws\/quotes\/.*$/, "/api/health");
    const health: number[] = [];
    let failed = 0;
    let on = true;
    const probing = (async () => {
      while (on) {
        const t = performance.now();
        const res = await fetch(healthUrl, { signal: AbortSignal.timeout(10_000) }).catch(() => null);
        if (res?.ok) health.push(performance.now() - t);
        else failed += 1;
        await res?.text();
        await sleep(1_000);
      }
    })();
    const T0 = Date.now();
    await sleep(window_ms);
    const T1 = Date.now();
    on = false;
    await probing;
    lag.disable();
    await sleep(1_500);
    const sorted = health.sort((a, b) => a - b);
    const h = { p99_ms: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? NaN, failed, n: health.length + failed };
    console.log(`/api/health during the window: ${h.n} probes, ${failed} failed, p99 ${ms(h.p99_ms)} ms`);
    return { r: analyseFanout(clients, n, T0, T1, 0), lag_p99_ms: lag.percentile(99) / 1e6, health: h };
  } finally {
    await closeAll(clients);
  }
}

export async function fanoutGroup(stateDir: string): Promise<GroupResult> {
  const sizes = (process.env.BENCH_FANOUT_SIZES ?? "1000,5000,10000").split(",").map(Number);
  const relayCounts = (process.env.BENCH_FANOUT_RELAYS ?? "0,4").split(",").map(Number);
  const window_ms = Number(process.env.BENCH_FANOUT_WINDOW_S ?? 10) * 1000;
  console.log(`\n== fan-out: ${sizes.join(", ")} sockets on one symbol, relays ${relayCounts.join(" and ")}, ${window_ms / 1000} s windows; ${loadLine()}`);
  await prepareState(stateDir);
  const snapshot = await snapshotWorker(`${stateDir}.snapshot`);
  const runs: Run[] = [];
  for (const relays of relayCounts) {
    const port = await freePort();
    const server = await startServer({ port, stateDir, skipPrepare: true, snapshot, vars: { QUOTE_RELAYS: String(relays) } });
    try {
      const url = `${server.baseUrl.replace(/^http/, "ws")}/ws/quotes/BTC-USDT`;
      for (const n of sizes) {
        console.log(`\n-- ${n} sockets, ${relays ? `${relays} relays` : "direct from the hub"}`);
        const m = await measure(url, n, window_ms);
        runs.push({ n, mode: relays ? `${relays} relays` : "direct", ...m });
      }
    } finally {
      await stopAllServers();
    }
  }
  const floors = new Map<number, Run>();
  for (const n of sizes) {
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const r = await fanoutFloor(n, BATCH, window_ms);
    lag.disable();
    floors.set(n, { n, mode: "floor", r, lag_p99_ms: lag.percentile(99) / 1e6 });
  }

  const rows = runs.map((run) => {
    const f = floors.get(run.n)!.r.rows[0].stats;
    const s = run.r.rows[0].stats;
    return [String(run.n), run.mode, `${run.r.opened}/${run.n}`, String(run.r.lost), ms(s.p50), ms(s.p99), ms(f.p50), ms(f.p99), (s.p50 / Math.max(1, f.p50)).toFixed(2), (s.p99 / Math.max(1, f.p99)).toFixed(2), ms(run.lag_p99_ms), run.health ? `${ms(run.health.p99_ms)} (${run.health.failed} failed)` : ""];
  });
  console.log(`\n${table(["sockets", "path", "open", "lost", "p50", "p99", "floor p50", "floor p99", "p50 ×", "p99 ×", "client lag p99", "health p99"], rows)}`);

  const verdicts: string[] = [];
  const largest = Math.max(...sizes);
  for (const run of runs.filter((r) => r.n === largest)) {
    const f = floors.get(run.n)!.r.rows[0].stats;
    const s = run.r.rows[0].stats;
    const [r50, r99] = [s.p50 / Math.max(1, f.p50), s.p99 / Math.max(1, f.p99)];
    const answered = run.health !== undefined && run.health.failed === 0 && run.health.n > 0;
    verdicts.push(verdict(run.r.opened === run.n && run.r.lost === 0 && r50 <= 1.5 && r99 <= 1.5 && answered, `fan-out ${run.n} sockets ${run.mode}: open ${run.r.opened}, lost ${run.r.lost}, p50 ${ms(s.p50)} ms (${r50.toFixed(2)}x floor), p99 ${ms(s.p99)} ms (${r99.toFixed(2)}x floor), /api/health answered ${(run.health?.n ?? 0) - (run.health?.failed ?? 0)} of ${run.health?.n ?? 0} (target: all open, 0 lost, each within 1.5x, health always answers)`));
  }
  // The capacity model's inputs: the time to write one frame, read from how long the hub takes
  // to reach its last socket after its first (the spread of one tick over all sockets).
  const direct = runs.filter((r) => r.mode === "direct").sort((a, b) => b.n - a.n)[0];
  if (direct) console.log(`capacity inputs: one tick reaches ${direct.n} sockets direct with a spread of ${ms(direct.r.spread_p50_ms)} ms (p50): ${((direct.r.spread_p50_ms * 1000) / direct.n).toFixed(1)} µs of the hub's thread per send`);
  for (const v of verdicts) console.log(v);
  return { rows: [...runs, ...floors.values()].map((run) => ({ ...run.r.rows[0], name: `fan-out ${run.n} ${run.mode}` })), verdicts };
}
