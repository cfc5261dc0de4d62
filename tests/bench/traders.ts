/** What the order benches share: this run's id, funded traders on BTC/USDT, and a hub's figures through the console. */
import { demoOperatorLogin } from "../../scripts/demo-operators";
import { readFileSync } from "node:fs";
import type { HubStats } from "../../durable-objects/quotes/hub-api";
import { clientIp, dataOf, ms, pool, postJson, summarize, timedRequest } from "./lib";

export const USDT = 1_000_000;

export const PASSWORD = "bench12345";

const PNG = readFileSync(new URL("../fixtures/uploads/png-rgb.png", import.meta.url));

/** A short id of this run, so accounts and idempotency keys never collide with an earlier run. */
export const RUN = Date.now().toString(36).slice(-6);

export type BenchUser = { id: number; account: string; token: string };

/** What the order benches need: funded users, BTC/USDT's product and its 300 s stake. */
export type Traders = { users: BenchUser[]; btc: { id: number; price: string | null }; amount: string };

/** Each user's deposit: the orders bench's rounds stake about 170 orders of 50 USDT a user. */
export const FUND_USDT = 20_000;

/**
 * `n` users registered, each funded with FUND_USDT through the app's own routes (upload, recharge,
 * two operators' approval), and BTC/USDT's 300 s stake.
 */
export async function fundedTraders(base: string, nUsers: number, conc: number): Promise<Traders> {
  // ---- setup: register, upload, recharge, operator approval ----
  const tSetup = performance.now();
  const users = await pool(Array.from({ length: nUsers }, (_, i) => i), conc, async (i) => {
    const account = `b${RUN}u${i}`;
    const r = await postJson(`${base}/api/user/register`, { account, password: PASSWORD, password_confirm: PASSWORD, invite_code: "WELCOME" }, clientIp(i));
    const info = dataOf<{ userinfo: { id: number; token: string } }>(`register ${account}`, r).userinfo;
    return { id: info.id, account, token: info.token, ms: r.ms } as BenchUser & { ms: number };
  });
  const regStats = summarize(users.map((u) => u.ms));
  console.log(`registered ${users.length} users (concurrency ${conc}) in ${((performance.now() - tSetup) / 1000).toFixed(1)} s; one register p50 ${ms(regStats.p50)} ms`);

  const ways = dataOf<{ id: number; chain: string; enabled: boolean }[]>("recharge_way", await timedRequest(`${base}/api/index/recharge_way`));
  const trc20 = ways.find((w) => w.chain.toUpperCase() === "TRC20");
  if (!trc20) throw new Error("no TRC20 recharge channel");
  const operatorToken = dataOf<{ token: string }>("operator login", await postJson(`${base}/api/admin/login`, await demoOperatorLogin())).token;

  const tFund = performance.now();
  const depositIds = await pool(users, conc, async (u, i) => {
    const form = new FormData();
    form.append("file", new Blob([PNG], { type: "image/png" }), "proof.png");
    const up = dataOf<{ url: string }>(`upload ${u.account}`, await timedRequest(`${base}/api/common/upload`, { method: "POST", headers: { token: u.token }, body: form }));
    const dep = await postJson(`${base}/api/user/recharge`, { channel_id: trc20.id, amount: String(FUND_USDT), tx_hash: `bench-${RUN}-${i}`, image: up.url, request_key: `bench-dep-${RUN}-${i}` }, { token: u.token });
    return dataOf<{ id: number }>(`recharge ${u.account}`, dep).id;
  });
  // FUND_USDT is past one user's rolling total of solo credits (decision 120): the second demo operator confirms each.
  const auditorToken = dataOf<{ token: string }>("auditor login", await postJson(`${base}/api/admin/login`, await demoOperatorLogin("auditor"))).token;
  await pool(depositIds, conc, async (id) => {
    const verified = { amount: String(FUND_USDT), tx_ref: `bench-verified-${id}` };
    const first = dataOf<{ status: string }>(`approve deposit ${id}`, await postJson(`${base}/api/admin/deposits/${id}/approve`, verified, { token: operatorToken }));
    if (first.status === "confirming") dataOf(`confirm deposit ${id}`, await postJson(`${base}/api/admin/deposits/${id}/approve`, verified, { token: auditorToken }));
  });
  console.log(`funded ${users.length} users with ${FUND_USDT} USDT each (upload + recharge + two operators' approval) in ${((performance.now() - tFund) / 1000).toFixed(1)} s`);

  // ---- the product, its 300 s duration and the latest price ----
  type ProductOut = { id: number; symbol: string; price: string | null; durations: { seconds: number; min_amount: string; min_amount_micro: number }[] };
  const products = dataOf<ProductOut[]>("product_list", await timedRequest(`${base}/api/index/product_list`));
  const btc = products.find((p) => p.symbol === "BTC/USDT");
  if (!btc) throw new Error("BTC/USDT is not listed");
  const d300 = btc.durations.find((d) => d.seconds === 300);
  if (!d300) throw new Error("BTC/USDT has no 300 s duration");
  // The brief's 10 USDT is below the seeded 300 s minimum (50 USDT), which would refuse every
  // order as stake_out_of_range: the stake is the larger of the two.
  const stake = Math.max(10 * USDT, d300.min_amount_micro);
  const amount = String(stake / USDT);
  if (stake !== 10 * USDT) console.log(`note: stake ${amount} USDT (the 300 s duration's minimum is ${d300.min_amount}; 10 would answer stake_out_of_range)`);

  return { users, btc, amount };
}

/** A product's hub figures (hub-api.ts HubStats), through the console's route as the demo operator. */
export async function hubStats(base: string, product_id: number): Promise<HubStats> {
  const op = dataOf<{ token: string }>("operator login", await postJson(`${base}/api/admin/login`, await demoOperatorLogin())).token;
  return dataOf<HubStats>("hub stats", await postJson(`${base}/api/admin/products/${product_id}/stats`, {}, { token: op }));
}
