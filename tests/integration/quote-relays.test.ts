/**
 * Quote relays (decision 103), against the server `npm start` runs (one workerd) with
 * QUOTE_RELAYS=4: 2,000 sockets spread over the relays each hear every tick once and in order,
 * with the same wire protocol as the hub (hello, then the quote block, then ticks); the relay
 * cap refuses like the hub's; and when the server restarts on the same state every socket
 * reconnects once and its ticks go on in order.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { reconnectOptions } from "../../app/lib/socket-options";
import { bin, prepare, quietEnv, stateDir } from "../../scripts/lib";
import { serverUp } from "./server";

/**
 * The server's port; the restart after a SIGKILL serves the same state on the second one: the
 * first port's 2,000 server-side connections sit in TIME_WAIT for a minute and workerd cannot
 * bind it again until they clear. Pages reconnect to wherever the server is now.
 */
const PORTS = [8798, 8794] as const;
let port: number = PORTS[0];
const STATE = stateDir("integration-relays");
const quotesUrl = () => `ws://127.0.0.1:${port}/ws/quotes/BTC-USDT`;
const SOCKETS = 2_000;
const START_MS = 240_000;
let server: ChildProcess | null = null;

/**
 * The first start bundles the Worker into the state; a restart serves that bundle (a crash does
 * not rebuild). A start that exits (its port not free yet) is tried again.
 */
async function startServer() {
  const bundled = join(STATE, "bundle", "index.js");
  // Generous: 2,000 pages knocking on the port while a loaded machine starts workerd.
  const deadline = Date.now() + START_MS;
  const log = join(STATE, `server-${port}.log`);
  for (let attempt = 1; ; attempt++) {
    const script = existsSync(bundled) ? ["--script", bundled] : [];
    const out = openSync(log, "a");
    const child = spawn(bin("tsx"), ["scripts/workerd-serve.ts", "--port", String(port), "--persist-to", STATE, ...script, "--var", "APP_ENV:local", "--var", "QUOTE_RELAYS:4", "--var", "QUOTE_SOCKETS_MAX:600"], { env: quietEnv, stdio: ["ignore", out, out], detached: true });
    closeSync(out);
    server = child;
    const exited = new Promise<"exited">((resolve) => child.once("exit", () => resolve("exited")));
    const up = serverUp(`http://127.0.0.1:${port}`, Math.max(1_000, deadline - Date.now()), 250).then(
      () => "up" as const,
      () => "late" as const,
    );
    const outcome = await Promise.race([up, exited]);
    if (outcome === "up") return;
    // What the server said is the only clue to why it did not start: it goes into the failure.
    const said = () => readFileSync(log, "utf8").split("\n").slice(-15).join("\n");
    if (outcome === "late" || Date.now() > deadline) throw new Error(`the server on ${port} did not start within ${START_MS / 1000} s (${attempt} attempts); it said:\n${said()}`);
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

function stopServer(signal: NodeJS.Signals) {
  if (server?.pid) process.kill(-server.pid, signal);
  server = null;
}

beforeAll(async () => {
  rmSync(STATE, { recursive: true, force: true });
  await prepare(STATE, { build: false });
  await startServer();
}, 360_000);

afterAll(() => stopServer("SIGTERM"));

/** A page's quote socket that reconnects when dropped (as partysocket does), recording what it hears. */
type Page = { types: string[]; ticks: number[]; opens: number; refused: number; closed: boolean; ws: WebSocket | null };

function page(): Promise<Page> {
  const p: Page = { types: [], ticks: [], opens: 0, refused: 0, closed: false, ws: null };
  return new Promise((resolve) => {
    // Our pages' own backoff (app/lib/socket-options.ts): each socket its own jittered delays,
    // growing while the server is away. A fixed short delay made 2,000 sockets knock at once,
    // again and again, on a server that was still starting.
    const backoff = reconnectOptions();
    let retries = 0;
    const open = () => {
      // A handshake left unanswered (a connect queued while the restarted server came up) is given
      // up and tried again, as partysocket's connection timeout does in a page; long enough that a
      // busy server's slow answer is not abandoned (abandoned upgrades add to the storm).
      const ws = new WebSocket(quotesUrl(), { handshakeTimeout: 15_000 });
      p.ws = ws;
      ws.on("message", (data) => {
        const m = JSON.parse(String(data)) as { type: string; ts?: number };
        p.types.push(m.type);
        if (m.type === "tick") p.ticks.push(m.ts!);
      });
      ws.once("open", () => {
        p.opens += 1;
        retries = 0;
        resolve(p);
      });
      ws.once("unexpected-response", (req) => {
        // Refused (503): this page stops here.
        p.refused += 1;
        p.closed = true;
        req.destroy();
        resolve(p);
      });
      ws.on("error", () => undefined);
      ws.once("close", () => {
        if (p.closed) return;
        const delay_ms = Math.min(backoff.maxReconnectionDelay, backoff.minReconnectionDelay * backoff.reconnectionDelayGrowFactor ** retries);
        retries += 1;
        setTimeout(open, delay_ms);
      });
    };
    open();
  });
}

async function openAll(n: number): Promise<Page[]> {
  const pages: Page[] = [];
  for (let i = 0; i < n; i += 100) pages.push(...(await Promise.all(Array.from({ length: Math.min(100, n - i) }, page))));
  return pages;
}

const inOrderOnce = (ticks: number[]) => ticks.every((t, i) => i === 0 || t > ticks[i - 1]);

describe("quote relays", () => {
  it(`${SOCKETS} sockets over 4 relays each hear every tick once and in order`, async () => {
    const pages = await openAll(SOCKETS);
    expect(pages.filter((p) => p.opens === 1).length).toBe(SOCKETS);
    // The hub's protocol: hello, then the quote block, then ticks.
    await expect.poll(() => pages.filter((p) => p.types.length >= 2).length, { timeout: 30_000, interval: 200 }).toBe(SOCKETS);
    expect(pages.filter((p) => p.types[0] !== "hello" || p.types[1] !== "quote").map((p) => p.types.slice(0, 3))).toEqual([]);

    // Ticks heard by every page from a common start, for a few seconds.
    // A five-second window: ticks come about once a second, fewer on a busy machine.
    const from = Date.now() + 1_000;
    await new Promise((r) => setTimeout(r, 7_000));
    const to = Date.now() - 1_000;
    const window = (p: Page) => p.ticks.filter((t) => t >= from && t <= to);
    const reference = window(pages[0]);
    expect(reference.length).toBeGreaterThanOrEqual(3);
    for (const p of pages) {
      expect(inOrderOnce(p.ticks)).toBe(true);
      expect(window(p)).toEqual(reference);
    }
    for (const p of pages) {
      p.closed = true;
      p.ws?.close();
    }
  }, 120_000);

  /*
   * Before 2026-11-27 this restart sometimes never answered again: the local server's cron call
   * blocked the Node process while workerd, logging the reconnect storm, waited for Node to read
   * its output (scripts/workerd-serve.ts now triggers the cron asynchronously).
   */
  it(`after a SIGKILL, ${SOCKETS} pages reconnect once to the restarted server and hear ticks in order`, async () => {
    const pages = await openAll(SOCKETS);
    await expect.poll(() => pages.filter((p) => p.ticks.length >= 2).length, { timeout: 20_000, interval: 500 }).toBe(SOCKETS);
    // A restart of everything (relays included) on the same state: one reconnect each, then ticks in order.
    stopServer("SIGKILL");
    port = PORTS[1];
    await startServer();
    const tally = () => JSON.stringify({ opens: pages.reduce<Record<number, number>>((h, p) => ((h[p.opens] = (h[p.opens] ?? 0) + 1), h), {}), refused: pages.filter((p) => p.refused > 0).length });
    // 2,000 handshakes against a server that has just started: on a loaded machine (CI, beside the
    // journeys) they took over a minute, and a page waits up to 15 s between tries. The count of
    // opens is the assertion, not the time.
    await expect.poll(() => pages.filter((p) => p.opens === 2).length, { timeout: 180_000, interval: 500, message: "pages reopened once" }).toBe(SOCKETS).catch((err: Error) => {
      throw new Error(`${err.message}; pages by opens and refusals: ${tally()}`);
    });
    const lastBefore = pages.map((p) => p.ticks[p.ticks.length - 1]);
    await expect.poll(() => pages.every((p, i) => p.ticks.filter((t) => t > lastBefore[i]).length >= 2), { timeout: 20_000, interval: 500 }).toBe(true);
    for (const p of pages) {
      expect(p.opens).toBe(2);
      expect(inOrderOnce(p.ticks)).toBe(true);
    }
    for (const p of pages) {
      p.closed = true;
      p.ws?.close();
    }
  }, 480_000);

  it("a relay at its cap refuses with 503 like the hub, and the server keeps answering", async () => {
    // 4 relays x 600: the 2,401st socket finds every relay of its pick full only if all are; fill one relay's share.
    const pages = await openAll(2_500);
    const refused = pages.filter((p) => p.refused > 0).length;
    expect(refused).toBeGreaterThan(0);
    expect(pages.filter((p) => p.opens > 0).length).toBeLessThanOrEqual(2_400);
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).ok).toBe(true);
    for (const p of pages) {
      p.closed = true;
      p.ws?.close();
    }
  }, 120_000);
});
