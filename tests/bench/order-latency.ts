/**
 * Trade bench 2, place-order latency and throughput, against `wrangler dev` (workerd) on
 * 127.0.0.1: 200 users in closed loops on /api/order/addorder, next to the same load on
 * /api/health.
 *
 * Every loop is bounded in count and in time; servers are stopped by the caller (run.ts) or
 * here, on every way out.
 */
import { closedLoop, ms, postJson, printServerLog, sleep, statsTable, summarize, timedRequest, verdict, type GroupResult, type Row, type Server } from "./lib";
import { RUN, fundedTraders } from "./traders";

export async function benchPlaceOrders(server: Server, opts: { users?: number; duration_ms?: number; setupConcurrency?: number } = {}): Promise<GroupResult> {
  const nUsers = opts.users ?? 200;
  const duration_ms = opts.duration_ms ?? 20_000;
  const conc = opts.setupConcurrency ?? 8;
  const base = server.baseUrl;
  console.log(`\n== 2. place-order latency/throughput: ${nUsers} users in closed loops for ${duration_ms / 1000} s, then /api/health the same way`);

  const restartsBefore = server.restarts();
  const mark = server.logMark();
  const { users, btc, amount } = await fundedTraders(base, nUsers, conc);
  let price = btc.price;
  let pollerErrors = 0;
  let polling = true;
  const poller = (async () => {
    // One poller, once a second: what a page shows as the quote before the user commits.
    while (polling) {
      try {
        const r = await timedRequest(`${base}/api/index/product?id=${btc.id}`);
        const p = (r.body?.data as { price?: string | null } | null)?.price;
        if (r.body?.code === 1 && p) price = p;
        else pollerErrors++;
      } catch {
        pollerErrors++;
      }
      await sleep(1_000);
    }
  })();

  let orders: Awaited<ReturnType<typeof closedLoop>>;
  const seqOrder: number[] = [];
  const seqHealth: number[] = [];
  let seqErrors = 0;
  try {
    // A few warm-up orders (not measured): first requests pay for JIT and code paths.
    for (let i = 0; i < 5; i++) {
      const u = users[i % users.length];
      await postJson(`${base}/api/order/addorder`, { product_id: btc.id, direction: "up", amount, seconds: 300, quote_price: price, client_order_id: `bench-${RUN}-warm-${i}` }, { token: u.token });
    }
    // Unloaded baseline, one request at a time: what one order costs without queueing.
    for (let i = 0; i < 20; i++) {
      const r = await postJson(`${base}/api/order/addorder`, { product_id: btc.id, direction: i % 2 ? "down" : "up", amount, seconds: 300, quote_price: price, client_order_id: `bench-${RUN}-seq-${i}` }, { token: users[i].token });
      seqOrder.push(r.ms);
      if (r.body?.code !== 1) seqErrors++;
      seqHealth.push((await timedRequest(`${base}/api/health`)).ms);
    }
    orders = await closedLoop(nUsers, duration_ms, (w, k) =>
      postJson(
        `${base}/api/order/addorder`,
        { product_id: btc.id, direction: k % 2 === 0 ? "up" : "down", amount, seconds: 300, quote_price: price, client_order_id: `bench-${RUN}-${w}-${k}` },
        { token: users[w].token },
      ),
    );
  } finally {
    polling = false;
    await poller;
  }

  for (let i = 0; i < 20; i++) await timedRequest(`${base}/api/health`); // warm-up
  const health = await closedLoop(nUsers, duration_ms, () => timedRequest(`${base}/api/health`));

  const seqO = summarize(seqOrder);
  const seqH = summarize(seqHealth);
  console.log(`unloaded (one at a time, 20 each): order p50 ${ms(seqO.p50)} ms (max ${ms(seqO.max)}), health p50 ${ms(seqH.p50)} ms -> ${(seqO.p50 / seqH.p50).toFixed(1)}x${seqErrors ? `, ${seqErrors} order errors` : ""}`);
  const orderErrors = [...orders.errors.values()].reduce((s, x) => s + x, 0);
  const healthErrors = [...health.errors.values()].reduce((s, x) => s + x, 0);
  const rows: Row[] = [
    { name: `POST /api/order/addorder (${nUsers} loops)`, stats: summarize(orders.ms), errors: orderErrors, gate: false },
    { name: `GET /api/health (${nUsers} loops)`, stats: summarize(health.ms), errors: healthErrors, gate: false },
  ];
  console.log(statsTable(rows));
  console.log(`orders: ${orders.ok} placed, ${orderErrors} errors in ${(orders.elapsed_ms / 1000).toFixed(1)} s -> ${(orders.ok / (orders.elapsed_ms / 1000)).toFixed(1)} orders/s (all answers ${(orders.ms.length / (orders.elapsed_ms / 1000)).toFixed(1)}/s)`);
  for (const [reason, count] of orders.errors) {
    const took = summarize(orders.errorMs.get(reason) ?? []);
    const at = summarize(orders.errorAt.get(reason) ?? []);
    console.log(`  order error x${count}: ${reason}`);
    console.log(`    (those requests took p50 ${ms(took.p50)} ms, max ${ms(took.max)} ms; sent between ${(at.min / 1000).toFixed(1)} s and ${(at.max / 1000).toFixed(1)} s into the run)`);
    if (reason.includes("restarted mid-request") && server.restarts() === restartsBefore) {
      console.log("    note: no reload happened; wrangler's dev proxy gives this answer to a POST whenever its connection to the Worker fails");
    }
  }
  console.log(`health: ${health.ok} ok, ${healthErrors} errors -> ${(health.ms.length / (health.elapsed_ms / 1000)).toFixed(1)} requests/s`);
  for (const [reason, count] of health.errors) console.log(`  health error x${count}: ${reason}`);
  if (pollerErrors) console.log(`price poller: ${pollerErrors} failed polls`);
  printServerLog(server, mark, "place order");
  const restarts = server.restarts() - restartsBefore;
  if (restarts) console.log(`WARNING: wrangler reloaded the Worker ${restarts} time(s) during this bench (a watched file changed): figures include it`);
  const ratio = rows[0].stats.p50 / rows[1].stats.p50;
  const v = verdict(ratio <= 4 && orderErrors === 0 && healthErrors === 0, `place order: p50 ${ms(rows[0].stats.p50)} ms / health p50 ${ms(rows[1].stats.p50)} ms = ${ratio.toFixed(1)}x (target <= 4x), errors ${orderErrors} + ${healthErrors} (target 0)`);
  console.log(v);
  return {
    rows,
    verdicts: [
      v,
      `      throughput ${(orders.ok / (orders.elapsed_ms / 1000)).toFixed(1)} orders/s, order p95 ${ms(rows[0].stats.p95)} ms, p99 ${ms(rows[0].stats.p99)} ms; unloaded order p50 ${ms(seqO.p50)} ms vs health ${ms(seqH.p50)} ms (${(seqO.p50 / seqH.p50).toFixed(1)}x)`,
    ],
  };
}
