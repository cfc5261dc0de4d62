/**
 * The real-exchange adapter, end to end: a local fake upstream speaks Binance's trade-stream
 * format; the Worker runs under `wrangler dev` with PRICE_FEED=binance pointed at it; a client
 * on /ws/quotes/BTC-USDT must receive exactly the upstream's BTCUSDT prices, in order, and
 * never a trade of another symbol. The fake speaks plain ws on 127.0.0.1, which the hub only
 * accepts outside production with the test-only PRICE_FEED_ALLOW_LOOPBACK=1.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { bin, prepare, quietEnv } from "../../scripts/lib";
import { serverUp } from "./server";

const PORT = 8796;
const STATE = ".wrangler/integration";
let upstream: WebSocketServer;
let upstreamPath = "";
let server: ChildProcess | null = null;

beforeAll(async () => {
  upstream = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((r) => upstream.once("listening", r));
  upstream.on("connection", (_ws, req) => {
    upstreamPath = req.url ?? "";
  });
  const upstreamPort = (upstream.address() as AddressInfo).port;
  rmSync(STATE, { recursive: true, force: true });
  await prepare(STATE, { build: false });
  server = spawn(
    bin("wrangler"),
    ["dev", "--ip", "127.0.0.1", "--port", String(PORT), "--persist-to", STATE, "--var", "APP_ENV:local", "--var", "PRICE_FEED:binance", "--var", `PRICE_FEED_URL:ws://127.0.0.1:${upstreamPort}`, "--var", "PRICE_FEED_ALLOW_LOOPBACK:1"],
    { env: quietEnv, stdio: "ignore", detached: true },
  );
  await serverUp(`http://127.0.0.1:${PORT}`, 60_000, 250);
}, 120_000);

afterAll(async () => {
  if (server?.pid) process.kill(-server.pid, "SIGTERM");
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

    await expect.poll(() => received.filter((m) => m.type === "tick").length, { timeout: 5_000, interval: 50 }).toBeGreaterThanOrEqual(prices.length);
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
});
