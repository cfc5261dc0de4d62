/**
 * Customer-service bench, against `wrangler dev` (workerd) on 127.0.0.1: N guest conversations
 * at once (200 unless BENCH_SERVICE_CONVERSATIONS says otherwise), each exchanging 10 rounds:
 * the visitor sends over its socket (`{type:"send"}`, as the chat page does while its socket is
 * open) and the operator's socket receives it, then the operator answers over its socket and the
 * visitor's socket receives that. `BENCH_SERVICE_VIA=rest` sends over REST instead (the pages'
 * fallback when the socket is down), for comparison.
 *
 * Delivery latency = receipt on the other side's socket (Node's performance.now) minus the
 * moment the sender's message left (same process, same clock), matched by client message id.
 * Lost = a message the other side's socket never got (within 10 s); duplicated = a message id a
 * socket got more than once. Over REST, like a page, the bench resends a message with the same client id
 * when the connection drops or the dev server answers 503 ("restarted mid-request"): the
 * resends are counted and printed, and the latency runs from the first attempt. The floors, under the same concurrency and pattern: a WebSocket
 * ping answered by the same conversation's Durable Object (the bare object round trip), and
 * GET /api/health (the bare Worker round trip).
 */
import WebSocket from "ws";
import { demoOperatorLogin } from "../../scripts/demo-operators";
import { operatorCookie } from "../../worker/session-cookie";
import { clientIp, dataOf, ms, pool, postJson, printServerLog, sleep, statsTable, summarize, timedRequest, verdict, type GroupResult, type Row, type Server, type TimedResponse } from "./lib";

const RUN = Date.now().toString(36).slice(-6);
const RECEIPT_TIMEOUT_MS = 10_000;
const TARGET_P99_MS = 100;

type Socket = {
  ws: WebSocket;
  /** Message id → how many times it arrived, and when it first did. */
  seen: Map<number, { count: number; at: number }>;
  waiters: Map<number, (at: number) => void>;
  /** Client message id → when it first arrived (a socket send is matched by it), or its refusal. */
  byClient: Map<string, number>;
  clientWaiters: Map<string, (at: number | string) => void>;
  pong: (() => void) | null;
};

const VIA: "socket" | "rest" = process.env.BENCH_SERVICE_VIA === "rest" ? "rest" : "socket";

/** A client message id per conversation, side and round: the API derives nothing from it. */
const clientId = (c: number, side: string, round: number) => `b${RUN}-${c}-${side}-${round}`;

function openSocket(url: string, cookie: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { cookie }, perMessageDeflate: false, handshakeTimeout: 15_000 });
    const s: Socket = { ws, seen: new Map(), waiters: new Map(), byClient: new Map(), clientWaiters: new Map(), pong: null };
    ws.on("message", (data) => {
      const at = performance.now(); // first: the receipt time, before parsing
      const m = JSON.parse(String(data)) as { type: string; message?: { id: number; client_message_id: string | null }; client_message_id?: string; error?: string };
      if (m.type === "pong") s.pong?.();
      if (m.type === "send_error" && m.client_message_id) s.clientWaiters.get(m.client_message_id)?.(`send_error ${m.error}`);
      if (m.type !== "message" || !m.message) return;
      const cid = m.message.client_message_id;
      if (cid && !s.byClient.has(cid)) {
        s.byClient.set(cid, at);
        s.clientWaiters.get(cid)?.(at);
      }
      const entry = s.seen.get(m.message.id);
      if (entry) entry.count += 1;
      else s.seen.set(m.message.id, { count: 1, at });
      s.waiters.get(m.message.id)?.(at);
    });
    ws.once("open", () => resolve(s));
    ws.once("error", reject);
  });
}

/** When `id` arrived (or arrives) on the socket; null if not within the timeout. */
function receipt(s: Socket, id: number): Promise<number | null> {
  const seen = s.seen.get(id);
  if (seen) return Promise.resolve(seen.at);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), RECEIPT_TIMEOUT_MS);
    s.waiters.set(id, (at) => {
      clearTimeout(timer);
      s.waiters.delete(id);
      resolve(at);
    });
  });
}

/** When the message with this client id arrived (or arrives) on the socket; a refusal's text; null if neither within the timeout. */
function receiptByClient(s: Socket, cid: string): Promise<number | string | null> {
  const seen = s.byClient.get(cid);
  if (seen !== undefined) return Promise.resolve(seen);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), RECEIPT_TIMEOUT_MS);
    s.clientWaiters.set(cid, (at) => {
      clearTimeout(timer);
      s.clientWaiters.delete(cid);
      resolve(at);
    });
  });
}

type Conversation = { id: number; cookie: string; visitor: Socket; operator: Socket };

/** Each guest from its own address: new guest conversations are limited per network (decision 115). */
async function openConversation(base: string, opCookie: string, n: number): Promise<Conversation> {
  const res = await fetch(`${base}/api/service/open`, { method: "POST", headers: { "content-type": "application/json", ...clientIp(n) }, body: "{}" });
  const body = (await res.json()) as { code: number; data: { conversation: { id: number } } };
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0];
  if (body.code !== 1 || !cookie.startsWith("pl_guest=")) throw new Error(`open: ${JSON.stringify(body)}`);
  const ws = base.replace(/^http/, "ws");
  const id = body.data.conversation.id;
  const [visitor, operator] = await Promise.all([openSocket(`${ws}/ws/service/${id}`, cookie), openSocket(`${ws}/ws/service/${id}?as=operator`, opCookie)]);
  return { id, cookie, visitor, operator };
}

type Tally = { latencies: number[]; lost: number; failed: number; resent: number; refused: Map<string, number> };

/** Counts a failure by reason; `final`: the message was not stored even after resending. */
function refuse(tally: Tally, reason: string, final = false) {
  tally.refused.set(reason, (tally.refused.get(reason) ?? 0) + 1);
  if (final) tally.failed += 1;
  else tally.resent += 1;
}

/** One message over the sender's socket, timed until the other side's socket has it. */
async function deliverOverSocket(conv: Conversation, side: "visitor" | "operator", round: number, tally: Tally) {
  const cid = clientId(conv.id, side, round);
  const [from, to] = side === "visitor" ? [conv.visitor, conv.operator] : [conv.operator, conv.visitor];
  const sent = performance.now();
  const ack = receiptByClient(from, cid);
  const other = receiptByClient(to, cid);
  from.ws.send(JSON.stringify({ type: "send", client_message_id: cid, text: `${side} ${round}` }));
  const [mine, theirs] = await Promise.all([ack, other]);
  if (typeof mine === "string") return refuse(tally, `${side}: ${mine}`, true);
  if (typeof theirs !== "number") tally.lost += 1;
  else tally.latencies.push(theirs - sent);
}

/** One message over REST, timed until the other side's socket has it. */
async function deliver(base: string, conv: Conversation, side: "visitor" | "operator", round: number, opToken: string, tally: Tally) {
  const path = side === "visitor" ? "/api/service/send" : "/api/admin/service/send";
  const headers: Record<string, string> = side === "visitor" ? { cookie: conv.cookie } : { token: opToken };
  const sent = performance.now();
  const body = { conversation_id: conv.id, client_message_id: clientId(conv.id, side, round), text: `${side} ${round}` };
  let r: TimedResponse | null = null;
  for (let attempt = 1; attempt <= 3; attempt++) {
    r = await postJson(`${base}${path}`, body, headers).catch((err) => ({ ms: 0, status: 0, body: null, text: `network ${String((err as Error)?.cause ?? err).slice(0, 80)}` }));
    // A dropped connection or the dev server's 503: a page resends with the same client id, and so do we.
    if (r.status !== 0 && r.status !== 503) break;
    refuse(tally, `${side}: resent after HTTP ${r.status} ${(r.text ?? "").slice(0, 60)}`);
  }
  if (!r || r.status !== 200 || r.body?.code !== 1) return refuse(tally, `${side}: HTTP ${r?.status} ${(r?.body?.data as { error?: string } | null)?.error ?? r?.text ?? ""}`, true);
  const id = (r.body.data as { message: { id: number } }).message.id;
  const at = await receipt(side === "visitor" ? conv.operator : conv.visitor, id);
  if (at === null) tally.lost += 1;
  else tally.latencies.push(at - sent);
}

/** The floor through the same object: a ping answered by the conversation's Durable Object. */
async function pingFloor(conv: Conversation, samples: number[]) {
  const s = conv.visitor;
  const sent = performance.now();
  const answered = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), RECEIPT_TIMEOUT_MS);
    s.pong = () => {
      clearTimeout(timer);
      resolve(true);
    };
    s.ws.send(JSON.stringify({ type: "ping" }));
  });
  s.pong = null;
  if (answered) samples.push(performance.now() - sent);
}

function duplicates(convs: Conversation[]): number {
  let dup = 0;
  for (const c of convs) for (const s of [c.visitor, c.operator]) for (const e of s.seen.values()) dup += e.count - 1;
  return dup;
}

export async function benchServiceChat(server: Server, opts: { conversations?: number; rounds?: number; setupConcurrency?: number } = {}): Promise<GroupResult> {
  const n = opts.conversations ?? 200;
  const rounds = opts.rounds ?? 10;
  const base = server.baseUrl;
  console.log(`\n== customer service: ${n} guest conversations at once, ${rounds} rounds each, sent over ${VIA} (visitor → operator socket, operator → visitor socket)`);
  const mark = server.logMark();
  const restartsBefore = server.restarts();
  const opToken = dataOf<{ token: string }>("operator login", await postJson(`${base}/api/admin/login`, await demoOperatorLogin())).token;
  const opCookie = (await operatorCookie.serialize(opToken)).split(";")[0];

  const t0 = performance.now();
  const convs = await pool(Array.from({ length: n }, (_, i) => i), opts.setupConcurrency ?? 16, (i) => openConversation(base, opCookie, i));
  console.log(`opened ${convs.length} conversations with ${convs.length * 2} sockets in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  try {
    // Warm-up (not measured): the first requests pay for JIT and for creating each object.
    await Promise.all(convs.map((c) => pingFloor(c, [])));

    const tally: Tally = { latencies: [], lost: 0, failed: 0, resent: 0, refused: new Map() };
    const tRun = performance.now();
    await Promise.all(
      convs.map(async (c) => {
        for (let round = 0; round < rounds; round++) {
          if (VIA === "socket") {
            await deliverOverSocket(c, "visitor", round, tally);
            await deliverOverSocket(c, "operator", round, tally);
          } else {
            await deliver(base, c, "visitor", round, opToken, tally);
            await deliver(base, c, "operator", round, opToken, tally);
          }
        }
      }),
    );
    const runS = (performance.now() - tRun) / 1000;
    // Late copies would show up now: give them a moment before counting duplicates.
    await sleep(1_000);
    const dup = duplicates(convs);

    const pings: number[] = [];
    await Promise.all(convs.map(async (c) => { for (let i = 0; i < rounds * 2; i++) await pingFloor(c, pings); }));
    const health: number[] = [];
    await Promise.all(convs.map(async () => { for (let i = 0; i < rounds * 2; i++) health.push((await timedRequest(`${base}/api/health`).catch(() => ({ ms: NaN }))).ms); }));

    return report({ n, rounds, tally, dup, runS, pings, health, restarts: server.restarts() - restartsBefore });
  } finally {
    printServerLog(server, mark, "service");
    for (const c of convs) for (const s of [c.visitor, c.operator]) s.ws.terminate();
  }
}

function report(r: { n: number; rounds: number; tally: Tally; dup: number; runS: number; pings: number[]; health: number[]; restarts: number }): GroupResult {
  const expected = r.n * r.rounds * 2;
  const refused = r.tally.failed;
  const delivery = summarize(r.tally.latencies);
  const ping = summarize(r.pings);
  const health = summarize(r.health.filter(Number.isFinite));
  const rows: Row[] = [
    { name: `chat: ${VIA} send → other side's socket`, stats: delivery, errors: r.tally.lost + refused + r.dup, gate: false, note: `${r.tally.resent} resent` },
    { name: "floor: socket ping → pong (same object)", stats: ping, errors: 0 },
    { name: "floor: GET /api/health (same load)", stats: health, errors: 0 },
  ];
  console.log(statsTable(rows));
  for (const [reason, count] of r.tally.refused) console.log(`x${count}: ${reason}`);
  const verdicts = [
    `chat: ${r.tally.latencies.length}/${expected} delivered in ${r.runS.toFixed(1)} s (${(r.tally.latencies.length / r.runS).toFixed(0)} msg/s); lost ${r.tally.lost}, duplicated ${r.dup}, refused ${refused}, resent with the same client id ${r.tally.resent} (latency counts from the first attempt)${r.restarts ? `, worker restarted ${r.restarts}x (figures void)` : ""}`,
    `chat delivery vs floors: p50 ${(delivery.p50 / ping.p50).toFixed(1)}x socket ping, ${(delivery.p50 / health.p50).toFixed(1)}x /api/health; p99 ${(delivery.p99 / ping.p99).toFixed(1)}x ping, ${(delivery.p99 / health.p99).toFixed(1)}x health`,
    verdict(delivery.p99 <= TARGET_P99_MS, `chat delivery p99 ${ms(delivery.p99)} ms (target <= ${TARGET_P99_MS} ms)`),
    verdict(r.tally.lost === 0 && refused === 0, `chat lost ${r.tally.lost + refused} (target 0)`),
    verdict(r.dup === 0, `chat duplicated ${r.dup} (target 0)`),
  ];
  return { rows, verdicts };
}
