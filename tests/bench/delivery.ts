/**
 * Delivery to the page: 1,000 orders placed through the API over a minute (40 users, one order
 * each every 2.4 s, 30-second deliveries), each owner's page listening on its user channel. For
 * every order: the time from its delivery moment to the owner's page hearing its result (the
 * `order` message that makes the page show it). Next to it, the floor: a ping's round trip on
 * the same sockets, which is the least any message to a page costs. Target: p99 <= 1.5 s.
 */
import WebSocket from "ws";
import { demoOperatorLogin } from "../../scripts/demo-operators";
import { clientIp, dataOf, ms, postJson, summarize, timedRequest, verdict, type GroupResult, type Server } from "./lib";

const USERS = 40;
const PER_USER = 25;
const SPREAD_MS = 60_000;
const PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAABgAAAAQCAIAAACDRijCAAAAUklEQVR4nO3MIQJAUBQAwX+wPeo2QRAEQRAEQRAEQRAEQRAEQRA4hPrmAJPwxQdvvPDEA3fccMUFZ5xwxAF77LDFBmussMQCc8xSRBFFFNG/6AMk732fPYXb4wAAAABJRU5ErkJggg==";

type Listener = { ws: WebSocket; heard: Map<number, number>; pings: number[] };

async function fundedUser(base: string, n: number, op: string): Promise<{ token: string }> {
  const account = `dl${Date.now().toString(36).slice(-5)}${n}`;
  const reg = dataOf<{ userinfo: { token: string } }>("register", await postJson(`${base}/api/user/register`, { account, password: "bench12345", password_confirm: "bench12345", invite_code: "WELCOME" }, clientIp(n)));
  const token = reg.userinfo.token;
  const fd = new FormData();
  fd.set("file", new File([Uint8Array.from(atob(PNG_B64), (c) => c.charCodeAt(0))], "s.png", { type: "image/png" }));
  const up = await fetch(`${base}/api/common/upload`, { method: "POST", headers: { token }, body: fd }).then((r) => r.json() as Promise<{ data: { url: string } }>);
  const channels = dataOf<{ id: number; chain: string }[]>("channels", await postJson(`${base}/api/index/recharge_way`, {}));
  const trc20 = channels.find((c) => c.chain === "TRC20")!;
  const key = `dl-${account}`;
  const dep = dataOf<{ id: number }>("recharge", await postJson(`${base}/api/user/recharge`, { channel_id: trc20.id, amount: "300", tx_hash: `0x${key.replace(/[^0-9a-z]/gi, "")}`, image: up.data.url }, { token, "idempotency-key": key }));
  dataOf("approve", await postJson(`${base}/api/admin/deposits/${dep.id}/approve`, { amount: "300", tx_ref: `dl-${dep.id}` }, { token: op }));
  return { token };
}

function listen(base: string, token: string): Promise<Listener> {
  const cookie = `pl_session=${encodeURIComponent(btoa(JSON.stringify(token)))}`;
  return new Promise((resolve, reject) => {
    const l: Listener = { ws: new WebSocket(`${base.replace(/^http/, "ws")}/ws/user`, { headers: { cookie }, perMessageDeflate: false }), heard: new Map(), pings: [] };
    let sent = 0;
    l.ws.on("open", () => resolve(l));
    l.ws.on("error", reject);
    l.ws.on("message", (d) => {
      const now = Date.now();
      const m = JSON.parse(String(d)) as { type: string; order_id?: number; status?: string };
      if (m.type === "order" && m.status !== "open" && m.order_id !== undefined && !l.heard.has(m.order_id)) l.heard.set(m.order_id, now);
      if (m.type === "pong" && sent) l.pings.push(now - sent);
    });
    // The floor: a ping every 2 s, answered by the same object that carries the results.
    const timer = setInterval(() => {
      if (l.ws.readyState !== WebSocket.OPEN) return clearInterval(timer);
      sent = Date.now();
      l.ws.send(JSON.stringify({ type: "ping" }));
    }, 2_000);
    l.ws.on("close", () => clearInterval(timer));
  });
}

export async function benchDeliveryToPage(server: Server): Promise<GroupResult> {
  const base = server.baseUrl;
  console.log(`\n== delivery to the page: ${USERS * PER_USER} orders over ${SPREAD_MS / 1000} s by ${USERS} users, 30 s each; the result's arrival on the owner's socket after delivery`);
  const op = dataOf<{ token: string }>("operator login", await postJson(`${base}/api/admin/login`, await demoOperatorLogin())).token;
  const users: { token: string; listener: Listener }[] = [];
  for (let n = 0; n < USERS; n += 1) {
    const u = await fundedUser(base, n, op);
    users.push({ ...u, listener: await listen(base, u.token) });
  }
  const markets = dataOf<{ id: number; symbol: string }[]>("markets", await postJson(`${base}/api/index/product_list`, {}));
  const btc = markets.find((m) => m.symbol === "BTC/USDT")!;
  const deliveries = new Map<number, { at: number; user: number }>();
  let refused = 0;
  const start = Date.now();
  await Promise.all(
    users.map(async (u, i) => {
      for (let k = 0; k < PER_USER; k += 1) {
        const due = start + (i / USERS + k) * (SPREAD_MS / PER_USER);
        await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
        const quote = dataOf<{ price: string }>("quote", await postJson(`${base}/api/index/product`, { id: btc.id })).price;
        const r = await postJson(`${base}/api/order/addorder`, { product_id: btc.id, direction: k % 2 ? "up" : "down", amount: "10", seconds: 30, quote_price: quote, client_order_id: `dl-${start}-${i}-${k}` }, { token: u.token });
        if (r.body?.code === 1) deliveries.set((r.body.data as { id: number }).id, { at: (r.body.data as { order: { delivery_at: number } }).order.delivery_at, user: i });
        else refused += 1;
      }
    }),
  );
  // The last orders deliver 30 s after they were placed; results follow within seconds.
  const lastDelivery = Math.max(...[...deliveries.values()].map((d) => d.at));
  for (let i = 0; i < 60 && Date.now() < lastDelivery + 15_000; i += 1) await new Promise((r) => setTimeout(r, 1_000));
  const lat: number[] = [];
  let missing = 0;
  for (const [id, d] of deliveries) {
    const heard = users[d.user].listener.heard.get(id);
    if (heard === undefined) missing += 1;
    else lat.push(heard - d.at);
  }
  const pings = summarize(users.flatMap((u) => u.listener.pings));
  for (const u of users) u.listener.ws.close();
  const s = summarize(lat);
  const health = await timedRequest(`${base}/api/health`);
  const v = verdict(s.p99 <= 1_500 && missing === 0, `delivery to the page: ${lat.length} results heard, p50 ${ms(s.p50)} ms, p99 ${ms(s.p99)} ms after delivery (target p99 <= 1500 ms), ${missing} never heard, ${refused} orders refused; floor: a ping round trip on the same sockets p50 ${ms(pings.p50)} ms, p99 ${ms(pings.p99)} ms (/api/health after: ${ms(health.ms)} ms)`);
  console.log(v);
  return { rows: [], verdicts: [v] };
}
