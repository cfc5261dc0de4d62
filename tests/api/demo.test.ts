import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createApi } from "../../worker/api/app";
import worker from "../../worker/index";
import { DEMO_GRANT_MICRO } from "../../worker/domain/ledger/demo";
import { checkLedger } from "../../worker/domain/ledger/check";
import { checkMoneyMode } from "../../worker/domain/ledger/money-mode";
import { checkOrder } from "../../worker/domain/trades/order-check";
import { decide, writeSettlements } from "../../worker/domain/trades/settlement-writes";
import { getProduct } from "../../worker/domain/trades/products";
import { writeOrders } from "../../worker/domain/trades/order-writes";
import { takeSnapshot } from "../../worker/domain/transparency/liabilities";
import { db, seed, testEnv, uniqueAccount } from "./helpers";
import { market, USDT } from "./trades/market-helpers";

/**
 * Demo money can never become real (decision 122). A demo is chosen by `APP_ENV=demo` alone:
 * production without a usable feed is not a demo but unready (no prices, no orders). Demo money
 * lives in its own accounts, is never withdrawable or owed, and a database that holds it never
 * serves real money. This file has its own workerd: it stamps its database as a demo's.
 */
const demoEnv = { ...testEnv, APP_ENV: "demo", PRICE_FEED: undefined, PRICE_FEED_URL: undefined };
const unreadyEnv = { ...testEnv, APP_ENV: "production", PRICE_FEED: undefined, PRICE_FEED_URL: undefined };
const liveEnv = { ...testEnv, APP_ENV: "production", PRICE_FEED: "binance", PRICE_FEED_URL: "wss://stream.binance.com:9443" };
const app = createApi();

async function callAs(env: typeof testEnv, path: string, body?: Record<string, unknown>, token?: string) {
  const res = await app.request(path, { method: body ? "POST" : "GET", headers: { "content-type": "application/json", ...(token ? { token } : {}) }, body: body ? JSON.stringify(body) : undefined }, env);
  return { status: res.status, ...((await res.json()) as { code: number; msg: string; data: any }) };
}

/** Through the Worker's entry, as a visitor reaches it (the deployment checks run there). */
async function fetchAs(env: typeof testEnv, path: string) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`http://127.0.0.1${path}`) as never, env as never, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const accounts = async (user_id: number) =>
  Object.fromEntries((await db.all<{ code: string; balance_micro: number }>(sql`SELECT code, balance_micro FROM ledger_accounts WHERE user_id = ${user_id}`)).map((a) => [a.code, a.balance_micro]));

async function register(env: typeof testEnv) {
  const r = await callAs(env, "/api/user/register", { account: uniqueAccount("dm"), password: "secret123", password_confirm: "secret123", invite_code: "WELCOME" });
  expect(r.code, r.msg).toBe(1);
  return r.data.userinfo as { id: number; token: string; balance_micro: number };
}

// An unstamped database, as a new deployment's is (tests/api/setup.ts stamps every test database real).
beforeAll(async () => {
  await db.run(sql`DELETE FROM app_config WHERE key = 'money_mode'`);
});

describe("what a deployment is, chosen by APP_ENV", () => {
  it("health: demo, live, local; production without a usable feed is unready (503) and never a demo", async () => {
    expect((await callAs(demoEnv, "/api/health")).data.mode).toBe("demo");
    expect((await callAs(liveEnv, "/api/health")).data).toMatchObject({ mode: "live", ready: true });
    expect((await callAs(testEnv, "/api/health")).data.mode).toBe("local");
    const unready = await callAs(unreadyEnv, "/api/health");
    expect(unready.status).toBe(503);
    expect(unready.data).toMatchObject({ mode: "unready", ready: false });
  });

  it("production without a usable feed refuses orders with a clear message, and gives no demo money", async () => {
    await seed();
    const u = await register(unreadyEnv);
    expect(u.balance_micro).toBe(0);
    expect((await accounts(u.id)).demo).toBeUndefined();
    const r = await callAs(unreadyEnv, "/api/order/addorder", { product_id: 1, direction: "up", amount: "10", seconds: 30, quote_price: "1" }, u.token);
    expect(r.status).toBe(503);
    expect(r.data.error).toBe("feed_unavailable");
    expect(r.msg).toBe("Trading is paused: the market price feed is not available. Your balance is safe; please try again later.");
  });

  it("an APP_ENV off the allow-list serves nothing: not the API, not a page", async () => {
    for (const APP_ENV of ["prod", "staging", ""]) {
      for (const path of ["/api/health", "/pages/user/login"]) {
        const res = await fetchAs({ ...testEnv, APP_ENV }, path);
        expect(res.status, `${APP_ENV} ${path}`).toBe(503);
        expect(((await res.json()) as { data: { error: string } }).data.error).toBe("misconfigured");
      }
    }
  });
});

describe("demo money", () => {
  it("a new account in a demo gets demo money in its own account: never available, never withdrawable, never owed", async () => {
    await seed();
    const u = await register(demoEnv);
    // Shown as the balance in a demo…
    expect(u.balance_micro).toBe(DEMO_GRANT_MICRO);
    // …but held in the demo account alone.
    expect(await accounts(u.id)).toMatchObject({ available: 0, demo: DEMO_GRANT_MICRO, demo_locked: 0 });
    expect((await callAs(demoEnv, "/api/user/withdraw_info", {}, u.token)).data.available_micro).toBe(0);
    const withdraw = await callAs(demoEnv, "/api/user/withdraw", { amount: "100", wallet_id: 1, password: "secret123" }, u.token);
    expect(withdraw.data.error).toBe("demo_money_closed");
    // Registering in a local run gives nothing.
    expect((await register(testEnv)).balance_micro).toBe(0);
    // The proof of liabilities owes it nothing.
    const store = new Map<string, Uint8Array>();
    const snapshot = await takeSnapshot(db, { get: async (p) => store.get(p) ?? null, put: async (p, b) => void store.set(p, b) }, { origin: "test", signing_seed: new Uint8Array(32).fill(7), pseudonym_key: new Uint8Array(32).fill(9) }, "test", Date.now());
    const [{ owed }] = await db.all<{ owed: number }>(sql`SELECT COALESCE(SUM(balance_micro), 0) AS owed FROM ledger_accounts WHERE owner_kind = 'user' AND code NOT IN ('demo', 'demo_locked')`);
    expect(snapshot.total_micro).toBe(owed);
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("a demo order stakes and settles between demo accounts only", async () => {
    await seed();
    const u = await register(demoEnv);
    const p = await market();
    const product = (await getProduct(db, p.id))!;
    const now = Date.now();
    const latest = { ts_ms: now, price_e8: 100 * 1e8 };
    const checked = checkOrder(product, { user_id: u.id, product_id: p.id, direction: "up", stake_micro: 100 * USDT, seconds: 60, quote_price_e8: latest.price_e8, request_key: "demo:one" }, latest, now);
    if (checked.status !== "ok") throw new Error(checked.status);
    const [placed] = await writeOrders(db, [{ ...checked.order, wallet: "demo" }]);
    if (placed.status !== "ok") throw new Error(placed.status);
    expect(placed.order.wallet).toBe("demo");
    expect(await accounts(u.id)).toMatchObject({ available: 0, locked_trade: 0, demo: DEMO_GRANT_MICRO - 101 * USDT, demo_locked: 100 * USDT });
    const fees = async () => (await db.all<{ b: number }>(sql`SELECT balance_micro AS b FROM ledger_accounts WHERE account_key = 'platform:fees'`))[0].b;
    const feesBefore = await fees();
    const o = placed.order;
    const won = decide(o, [{ ts_ms: o.created_at_ms + 1, price_e8: 100 * 1e8 }, { ts_ms: o.delivery_at_ms - 1, price_e8: 101 * 1e8 }]);
    expect((await writeSettlements(db, [won], o.delivery_at_ms + 1)).settled).toBe(1);
    expect(await accounts(u.id)).toMatchObject({ available: 0, locked_trade: 0, demo: DEMO_GRANT_MICRO - 101 * USDT + 180 * USDT, demo_locked: 0 });
    expect(await fees()).toBe(feesBefore);
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("a database holding demo money serves a demo but never real money, and the reverse", async () => {
    // This database holds demo grants: served as a demo, the entry stamps it a demo's.
    expect((await fetchAs(demoEnv, "/api/health")).status).toBe(200);
    const page = await fetchAs(demoEnv, "/pages/user/login");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-testid="demo-banner"');
    // The same database under a real-money deployment: refused, every route.
    for (const env of [liveEnv, unreadyEnv, testEnv]) {
      const res = await fetchAs(env, "/api/health");
      expect(res.status, env.APP_ENV).toBe(503);
      expect(((await res.json()) as { data: { error: string } }).data.error).toBe("misconfigured");
    }
    expect((await checkMoneyMode(db, "real", Date.now())).status).toBe("mismatch");
    // A database stamped as holding real money refuses a demo the same way.
    await db.run(sql`UPDATE app_config SET value = 'real' WHERE key = 'money_mode'`);
    expect(await checkMoneyMode(db, "demo", Date.now())).toEqual({ status: "mismatch", held: "real" });
  });
});
