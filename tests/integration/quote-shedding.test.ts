/**
 * A busy hub sheds load instead of dying (decision 088): the server runs as `npm start` runs it
 * (one workerd) with QUOTE_SOCKETS_MAX=3; the fourth quote socket is refused with HTTP 503 and the
 * localized envelope, the three already open keep receiving ticks, and the server keeps answering.
 * When one of the three leaves, a new socket gets in.
 */
import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { prepare, stateDir } from "../../scripts/lib";
import { serverUp, startServer, stopServer } from "./server";

const PORT = 8797;
const STATE = stateDir("integration-shedding");
const URL_QUOTES = `ws://127.0.0.1:${PORT}/ws/quotes/BTC-USDT`;
let server: ChildProcess | null = null;

beforeAll(async () => {
  rmSync(STATE, { recursive: true, force: true });
  await prepare(STATE, { build: false });
  server = startServer(PORT, STATE, ["APP_ENV:local", "QUOTE_SOCKETS_MAX:3"]);
  await serverUp(`http://127.0.0.1:${PORT}`, 90_000, 250);
}, 180_000);

afterAll(() => {
  stopServer(server, "SIGTERM");
});

type Opened = { ws: WebSocket; ticks: number };

function connect(): Promise<Opened | { refused: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(URL_QUOTES, { headers: { "accept-language": "th" } });
    const opened: Opened = { ws, ticks: 0 };
    ws.on("message", (data) => {
      if (JSON.parse(String(data)).type === "tick") opened.ticks += 1;
    });
    ws.once("open", () => resolve(opened));
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ refused: res.statusCode ?? 0, body }));
    });
    ws.once("error", reject);
  });
}

describe("a quote hub at its socket cap", () => {
  it("refuses the next socket with 503 and the envelope; the open ones keep their ticks; a freed place is taken again", async () => {
    const open = (await Promise.all([connect(), connect(), connect()])) as Opened[];
    expect(open.every((o) => "ws" in o)).toBe(true);

    const refused = await connect();
    expect(refused).toMatchObject({ refused: 503 });
    const envelope = JSON.parse((refused as { body: string }).body);
    expect(envelope).toEqual({ code: 0, msg: "ราคาสดมีผู้ใช้งานหนาแน่นในขณะนี้ กำลังเชื่อมต่อใหม่…", data: { error: "quotes_busy" } });

    const before = open.map((o) => o.ticks);
    await expect.poll(() => open.every((o, i) => o.ticks >= before[i] + 2), { timeout: 30_000, interval: 200 }).toBe(true);
    expect((await fetch(`http://127.0.0.1:${PORT}/api/health`)).ok).toBe(true);

    open[0].ws.close();
    await expect
      .poll(async () => {
        const again = await connect();
        if ("ws" in again) again.ws.close();
        return "ws" in again;
      }, { timeout: 30_000, interval: 300 })
      .toBe(true);
    for (const o of open) o.ws.close();
  });
});
