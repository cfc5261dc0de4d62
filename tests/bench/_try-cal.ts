import { freePort, startServer, stopAllServers } from "./lib";
const stateDir = ".wrangler/bench-burst-try";
try {
  const s = await startServer({ port: await freePort(), stateDir, skipPrepare: true, entry: "tests/bench/burst-worker.ts" });
  for (const conc of [1, 4, 8, 16, 32, 1]) {
    const now = Date.now();
    const inputs = Array.from({ length: 300 }, (_, k) => ({ user_id: 2, product_id: 3, direction: "up", stake_micro: 1_000_000, seconds: 200, quote_price_e8: 100e8, request_key: `client:cal-${now}-${k}` }));
    const t = performance.now();
    const r = await fetch(`${s.baseUrl}/bench/place`, { method: "POST", body: JSON.stringify({ inputs, latest: { ts_ms: now - 500, price_e8: 100e8 }, now_ms: now, concurrency: conc }) });
    console.log(conc, await r.text(), (performance.now() - t).toFixed(0));
  }
} finally {
  await stopAllServers();
  setTimeout(() => process.exit(), 1000).unref();
}
