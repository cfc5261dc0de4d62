/**
 * Kill the local server while orders are being settled, start it again, and check that every
 * order settled exactly once, on the right tick. The QuoteHub's alarm (at-least-once, persisted)
 * must pick up where it stopped; the transition guard must stop any double settlement.
 */
import type { ChildProcess } from "node:child_process";
import { demoOperatorLogin } from "../../scripts/demo-operators";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepare, stateDir } from "../../scripts/lib";
import { serverUp, startServer, stopServer } from "./server";

const PORT = 8795;
const BASE = `http://127.0.0.1:${PORT}`;
const STATE = stateDir("integration-restart");
let server: ChildProcess | null = null;

function start() {
  server = startServer(PORT, STATE, ["APP_ENV:local"]);
}

function kill() {
  stopServer(server, "SIGKILL");
  server = null;
}

/** The server's health check answers (it is started fresh, and again after the kill). */
const up = () => serverUp(BASE, 60_000, 200);

async function post<T = any>(path: string, body: unknown, token?: string): Promise<{ code: number; msg: string; data: T }> {
  const res = await fetch(`${BASE}${path}`, { method: "POST", headers: { "content-type": "application/json", ...(token ? { token } : {}) }, body: JSON.stringify(body) });
  return (await res.json()) as { code: number; msg: string; data: T };
}

beforeAll(async () => {
  rmSync(STATE, { recursive: true, force: true });
  await prepare(STATE, { build: false });
  start();
  await up();
}, 180_000);

afterAll(() => kill());

describe("settlement survives a crash", () => {
  it("every order settles exactly once with the tick at or before its delivery", async () => {
    const op = (await post("/api/admin/login", await demoOperatorLogin())).data.token as string;
    const saved = await post(
      "/api/admin/products/save",
      {
        reason: "restart test",
        symbol: "RST/USDT",
        name: "Restart",
        feed_symbol: "RSTUSDT",
        start_price: "100",
        tick_size: "0.01",
        fee_rate_bp: 100,
        quote_tolerance_bp: 500,
        trading_hours: "",
        enabled: "1",
        durations: JSON.stringify([{ seconds: 5, profit_rate_bp: 8500, min_amount: "1", max_amount: "1000" }]),
      },
      op,
    );
    expect(saved.code).toBe(1);
    // A new market is a proposal: the second demo operator opens it (decision 121).
    const auditor = (await post("/api/admin/login", await demoOperatorLogin("auditor"))).data.token as string;
    const opened = await post(`/api/admin/terms/proposals/${saved.data.proposal_id}/open`, {}, auditor);
    expect(opened.code, opened.msg).toBe(1);
    const product_id = opened.data.product_id as number;
    const login = await post("/api/user/login", { account: "demo", password: "demo12345" });
    const token = login.data.userinfo.token as string;
    const user_id = login.data.userinfo.id as number;

    const ids: number[] = [];
    for (let i = 0; i < 20; i++) {
      const price = (await post("/api/index/product", { id: product_id })).data.price as string;
      const r = await post("/api/order/addorder", { product_id, direction: i % 2 ? "down" : "up", amount: "10", seconds: 5, quote_price: price, client_order_id: `restart-${Date.now()}-${i}` }, token);
      expect(r.code, r.msg).toBe(1);
      ids.push(r.data.id);
    }
    const first = (await post("/api/order/orderinfo", { id: ids[0] }, token)).data.delivery_at as number;
    // Kill the server right as the first orders come due: mid-settlement.
    await new Promise((r) => setTimeout(r, Math.max(0, first - Date.now() + 300)));
    kill();
    await new Promise((r) => setTimeout(r, 1500));
    start();
    await up();

    // Only D1 reads from here on: nothing touches the QuoteHub, so its persisted alarm must do the work.
    let infos: any[] = [];
    await expect
      .poll(
        async () => {
          infos = await Promise.all(ids.map(async (id) => (await post("/api/order/orderinfo", { id }, token)).data));
          return infos.filter((o) => o.status === "open");
        },
        { timeout: 45_000, interval: 500 },
      )
      .toEqual([]);
    for (const o of infos) {
      expect(["won", "lost", "tie"]).toContain(o.status);
      const settlement = o.ticks.find((t: { role: string }) => t.role === "settlement");
      expect(settlement.ts).toBeLessThanOrEqual(o.delivery_at);
      expect(settlement.price).toBe(o.settlement_price);
      // No recorded tick between the one used and the delivery time.
      const later = o.ticks.filter((t: { ts: number }) => t.ts > settlement.ts && t.ts <= o.delivery_at);
      expect(later).toEqual([]);
      const same = o.settlement_price === o.entry_price;
      const up = Number(o.settlement_price) > Number(o.entry_price);
      expect(o.status).toBe(same ? "tie" : (o.direction === "up") === up ? "won" : "lost");
    }

    // Exactly once: one settlement transfer of the stake per order, and the books balance.
    const ledger = await fetch(`${BASE}/api/admin/users/${user_id}/ledger?row=100`, { headers: { token: op } }).then((r) => r.json() as Promise<any>);
    const settle = ledger.data.items.filter((l: { code: string; ref_type: string; account: string }) => l.ref_type === "order" && /^trade_(loss|stake_return|tie_refund|void_refund)$/.test(l.code) && l.account === "locked_trade");
    for (const id of ids) expect(settle.filter((l: { ref_id: string }) => l.ref_id === String(id))).toHaveLength(1);
    const check = await fetch(`${BASE}/api/admin/ledger/check`, { headers: { token: op } }).then((r) => r.json() as Promise<any>);
    expect(check.data.ok).toBe(true);
  }, 150_000);
});
