import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApi } from "../../worker/api/app";
import worker from "../../worker/index";
import { DEMO_GRANT_MICRO } from "../../worker/domain/ledger/demo";
import { checkLedger } from "../../worker/domain/ledger/check";
import { db, seed, testEnv, uniqueAccount } from "./helpers";

/**
 * A production deploy without a real price feed is a demo: every page says so, new accounts
 * get demo money from the ledger, and (tests/api/money) deposits and withdrawals are closed.
 */
const demoEnv = { ...testEnv, APP_ENV: "production", PRICE_FEED: undefined, PRICE_FEED_URL: undefined };
const liveEnv = { ...testEnv, APP_ENV: "production", PRICE_FEED: "binance", PRICE_FEED_URL: "wss://stream.binance.com:9443" };
const app = createApi();

async function callAs(env: typeof testEnv, path: string, body?: Record<string, unknown>) {
  const res = await app.request(path, { method: body ? "POST" : "GET", headers: { "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined }, env);
  return (await res.json()) as { code: number; msg: string; data: any };
}

async function pageAs(env: typeof testEnv, path: string) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`http://127.0.0.1${path}`) as never, env as never, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("demo deployment", () => {
  it("health tells the mode: demo without a real feed, live with one, local in tests", async () => {
    expect((await callAs(demoEnv, "/api/health")).data.mode).toBe("demo");
    expect((await callAs(liveEnv, "/api/health")).data.mode).toBe("live");
    expect((await callAs(testEnv, "/api/health")).data.mode).toBe("local");
  });

  it("a new account gets demo money, once, as a ledger transfer", async () => {
    await seed();
    const account = uniqueAccount("demo");
    const r = await callAs(demoEnv, "/api/user/register", { account, password: "secret123", password_confirm: "secret123", invite_code: "WELCOME" });
    expect(r.code).toBe(1);
    expect(r.data.userinfo.balance_micro).toBe(DEMO_GRANT_MICRO);
    const local = await callAs(testEnv, "/api/user/register", { account: uniqueAccount("loc"), password: "secret123", password_confirm: "secret123", invite_code: "WELCOME" });
    expect(local.data.userinfo.balance_micro).toBe(0);
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("every page says Demo; a local or live deployment does not", async () => {
    await seed();
    for (const path of ["/pages/user/login", "/pages/user/login2", "/pages/user/register", "/admin/login"]) {
      const res = await pageAs(demoEnv, path);
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).toContain('data-testid="demo-banner"');
    }
    for (const env of [testEnv, liveEnv]) {
      const res = await pageAs(env, "/pages/user/login");
      expect(res.status).toBe(200);
      expect(await res.text()).not.toContain('data-testid="demo-banner"');
    }
  });
});
