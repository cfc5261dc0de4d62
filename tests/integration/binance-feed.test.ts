/**
 * The real-exchange adapter, end to end: a local fake upstream speaks Binance's trade-stream
 * format; the Worker runs as `npm start` runs it, with PRICE_FEED=binance pointed at it; a client
 * on /ws/quotes/BTC-USDT must receive exactly the upstream's BTCUSDT prices, in order, and
 * never a trade of another symbol. The fake speaks plain ws on 127.0.0.1, which the hub only
 * accepts outside production with the test-only PRICE_FEED_ALLOW_LOOPBACK=1. Then the fake
 * drops the stream and refuses to keep it, and later goes silent: the hub must come back with
 * growing, jittered waits, take a silent stream for a dead one, and relay ticks again.
 */
import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { prepare, stateDir } from "../../scripts/lib";
import { serverUp, startServer, stopServer } from "./server";

const PORT = 8796;
const STATE = stateDir("integration");
let upstream: WebSocketServer;
let upstreamPath = "";
let server: ChildProcess | null = null;
/**
 * When each connection to the BTCUSDT stream arrived, and how many of the next ones to drop at
 * once (every product's hub connects here, each to its own stream).
 */
const BTC_STREAM = "/ws/btcusdt@trade";
const connections: number[] = [];
const btcSockets = new Set<WebSocket>();
let dropNext = 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms: number) {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await sleep(25);
  return check();
}

beforeAll(async () => {
  upstream = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((r) => upstream.once("listening", r));
  upstream.on("connection", (ws, req) => {
    upstreamPath = req.url ?? "";
    if (req.url !== BTC_STREAM) return;
    connections.push(Date.now());
    btcSockets.add(ws);
    ws.on("close", () => btcSockets.delete(ws));
    if (dropNext > 0) {
      dropNext--;
      ws.terminate();
    }
  });
  const upstreamPort = (upstream.address() as AddressInfo).port;
  rmSync(STATE, { recursive: true, force: true });
  await prepare(STATE, { build: false });
  server = startServer(PORT, STATE, ["APP_ENV:local", "PRICE_FEED:binance", `PRICE_FEED_URL:ws://127.0.0.1:${upstreamPort}`, "PRICE_FEED_ALLOW_LOOPBACK:1"]);
  await serverUp(`http://127.0.0.1:${PORT}`, 60_000, 250);
}, 120_000);

afterAll(async () => {
  stopServer(server, "SIGTERM");
  upstream?.close();
});

describe("Binance adapter against a fake upstream", () => {
  it("relays the upstream's trades of the product's symbol as ticks and marks prices as not simulated", async () => {
    const received: { type: string; price?: string; ts?: number; simulated?: boolean }[] = [];
    const client = new WebSocket(`ws://127.0.0.1:${PORT}/ws/quotes/BTC-USDT`);
    client.on("message", (data) => received.push(JSON.parse(String(data))));
    await new Promise((r) => client.once("open", r));

    // The hub connects upstream on its next beat.
    await expect.poll(() => upstream.clients.size, { timeout: 15_000, interval: 100 }).toBeGreaterThan(0);
    expect(upstreamPath).toBe("/ws/btcusdt@trade");

    const base = Date.now();
    const prices = ["67001.50", "67002.25", "66999.99"];
    const FOREIGN = "999999.00";
    const send = (msg: unknown) => {
      for (const ws of upstream.clients) ws.send(JSON.stringify(msg));
    };
    for (const [i, p] of prices.entries()) {
      send({ e: "trade", E: base + i * 100, s: "BTCUSDT", t: i + 1, p, q: "0.010", T: base + i * 100, m: false });
      await new Promise((r) => setTimeout(r, 50));
      // Another symbol's trade on the same stream, newer than the last BTC tick: dropped.
      send({ e: "trade", E: base + i * 100 + 50, s: "ETHUSDT", t: 100 + i, p: FOREIGN, q: "5.000", T: base + i * 100 + 50, m: false });
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const ws of upstream.clients) ws.send("not json");
    for (const ws of upstream.clients) ws.send(JSON.stringify({ e: "aggTrade", s: "BTCUSDT" }));

    await expect.poll(() => received.filter((m) => m.type === "tick").length, { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(prices.length);
    const ticks = received.filter((m) => m.type === "tick");
    expect(ticks.map((t) => t.price)).toEqual(["67001.50", "67002.25", "66999.99"]);
    expect(ticks.map((t) => t.ts)).toEqual([base, base + 100, base + 200]);
    expect(received.some((m) => m.price === FOREIGN)).toBe(false);

    const product = (await (await fetch(`http://127.0.0.1:${PORT}/api/index/product_list`)).json()) as { data: { id: number; symbol: string; price: string; simulated: boolean }[] };
    const btc = product.data.find((p) => p.symbol === "BTC/USDT")!;
    expect(btc.simulated).toBe(false);
    expect(btc.price).toBe("66999.99");
    const candles = (await (await fetch(`http://127.0.0.1:${PORT}/api/index/candles?id=${btc.id}&interval=1m&limit=10`)).json()) as { data: { h: string }[] };
    expect(candles.data.length).toBeGreaterThan(0);
    expect(Math.max(...candles.data.map((k) => Number(k.h)))).toBeLessThan(70_000);
    client.close();
  }, 60_000);

  it("comes back after drops with growing, jittered waits, drops a silent stream, and relays ticks again", async () => {
    const ticks: string[] = [];
    const client = new WebSocket(`ws://127.0.0.1:${PORT}/ws/quotes/BTC-USDT`);
    client.on("message", (data) => {
      const m = JSON.parse(String(data)) as { type: string; price?: string };
      if (m.type === "tick" && m.price) ticks.push(m.price);
    });
    await new Promise((r) => client.once("open", r));
    let lastSent = 0;
    const send = (price: string) => {
      const T = (lastSent = Date.now());
      for (const ws of btcSockets) ws.send(JSON.stringify({ e: "trade", E: T, s: "BTCUSDT", t: T, p: price, q: "0.010", T, m: false }));
    };
    /** Sends a trade until the page gets it: the stream is up and healthy. */
    const relayed = async (price: string, ms: number) => until(() => (ticks.includes(price) ? true : (send(price), false)), ms);

    expect(await relayed("67010.00", 15_000)).toBe(true);

    // The stream drops, and the next three connections are dropped as soon as they open.
    const mark = connections.length;
    dropNext = 3;
    const droppedAt = Date.now();
    for (const ws of btcSockets) ws.terminate();
    expect(await until(() => connections.length >= mark + 4, 30_000)).toBe(true);
    const times = [droppedAt, ...connections.slice(mark, mark + 4)];
    const waits = times.slice(1).map((t, i) => t - times[i]);
    // The schedule: a random point in the upper half of 1, 2, 4, 8 s (plus the time to notice
    // the drop and to connect). A retry every second, or at fixed steps, fails here.
    const steps = [1_000, 2_000, 4_000, 8_000];
    waits.forEach((w, i) => {
      expect(w).toBeGreaterThanOrEqual(steps[i] / 2);
      expect(w).toBeLessThan(steps[i] + 900);
    });
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThan(waits[i - 1] - steps[i - 1] * 0.1);
    expect(waits[3]).toBeGreaterThan(3 * waits[0]);
    console.log(`reconnect waits (ms): ${waits.join(", ")}`);
    const ratios = waits.slice(1).map((w, i) => w / waits[i]);
    expect(ratios.some((r) => Math.abs(r - 2) > 0.1)).toBe(true);

    // The fourth connection stays: ticks resume.
    expect(await relayed("67020.00", 5_000)).toBe(true);

    // Now the stream goes silent: after 10 s without a trade the hub drops it and connects again.
    const before = connections.length;
    expect(await until(() => connections.length > before, 20_000)).toBe(true);
    const gap = connections[before] - lastSent;
    console.log(`silent stream replaced after ${gap} ms`);
    expect(gap).toBeGreaterThanOrEqual(10_000);
    expect(gap).toBeLessThan(13_500);
    expect(await relayed("67030.00", 5_000)).toBe(true);
    expect([...new Set(ticks)]).toEqual(["67010.00", "67020.00", "67030.00"]);
    client.close();
  }, 90_000);

  it("an order settled on the exchange's trades names the feed, and each tick its trade id, in its log leaf", async () => {
    await expect.poll(() => btcSockets.size, { timeout: 30_000, interval: 100 }).toBeGreaterThan(0);
    // A live market: a BTCUSDT trade every 300 ms (orders need a trade under 2 s old).
    let trade = 5_000;
    let on = true;
    const pump = (async () => {
      while (on) {
        const now = Date.now();
        trade += 1;
        for (const ws of btcSockets) ws.send(JSON.stringify({ e: "trade", E: now, s: "BTCUSDT", t: trade, p: (67_000 + (trade % 7)).toFixed(2), q: "0.010", T: now, m: false }));
        await sleep(300);
      }
    })();
    type Answer = { code: number; msg: string; data: Record<string, unknown> };
    const post = async (path: string, body: unknown, token?: string) =>
      (await (await fetch(`http://127.0.0.1:${PORT}${path}`, { method: "POST", headers: { "content-type": "application/json", ...(token ? { token } : {}) }, body: JSON.stringify(body) })).json()) as Answer;
    try {
      const token = ((await post("/api/user/login", { account: "demo", password: "demo12345" })).data.userinfo as { token: string }).token;
      const list = ((await (await fetch(`http://127.0.0.1:${PORT}/api/index/product_list`)).json()) as { data: { id: number; symbol: string }[] }).data;
      const btc = list.find((p) => p.symbol === "BTC/USDT")!;
      await sleep(1_000);
      const quote = (await post("/api/index/product", { id: btc.id })).data.price;
      const placed = await post("/api/order/addorder", { product_id: btc.id, direction: "up", amount: "10", seconds: 30, quote_price: quote, client_order_id: `feed-${Date.now()}` }, token);
      expect(placed.code, placed.msg).toBe(1);
      const order_id = placed.data.id;
      // Settled 30 s on, then sequenced into the log.
      await expect.poll(async () => (await post("/api/proof/inclusion", { order_id }, token)).code, { timeout: 75_000, interval: 1_000 }).toBe(1);
      const leaf = JSON.parse((await post("/api/proof/inclusion", { order_id }, token)).data.leaf as string) as { feed: string; outcome: string; ticks: { role: string; trade_id?: string }[] };
      expect(leaf.feed).toBe("binance:BTCUSDT");
      expect(leaf.outcome).not.toBe("open");
      expect(leaf.ticks.length).toBeGreaterThan(1);
      for (const t of leaf.ticks) expect(t.trade_id).toMatch(/^\d+$/);
      expect(leaf.ticks.map((t) => t.role)).toContain("entry");
    } finally {
      on = false;
      await pump;
    }
  }, 120_000);
});
