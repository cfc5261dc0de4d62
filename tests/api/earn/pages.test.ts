import { beforeAll, describe, expect, it } from "vitest";
import { call, page, seed } from "../helpers";
import { accrue, advance, buyPool, DAY, fundedUser, withProfile } from "./helpers";

beforeAll(() => seed());

async function cookieFor(account: string, password: string) {
  const res = await page("/pages/user/login", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ account, password, path: "" }) });
  for (const c of res.headers.getSetCookie()) if (c.startsWith("pl_session=")) return c.split(";")[0];
  throw new Error("no session cookie");
}

/** The earn pages through the whole Worker, signed in, with real orders and outputs behind them. */
describe("earn pages", () => {
  it("render the products, the user's orders with their state, and the miner's outputs", async () => {
    const u = await fundedUser(20_000);
    await withProfile(u.id, "submitted");
    expect((await buyPool(u.token, "10000")).code).toBe(1);
    const plan = (await call("/api/index/product", { type: "miner" })).data[0];
    expect((await call("/api/index/buy", { type: "miner", product_id: plan.id }, { token: u.token })).code).toBe(1);
    await advance(DAY);
    await accrue();
    const cookie = await cookieFor(u.account, u.password);

    const loan = await page("/pages/me/sub/loan", { headers: { cookie } });
    expect(loan.status).toBe(200);
    const loanHtml = await loan.text();
    expect(loanHtml).toContain('data-testid="loan-product"');
    expect(loanHtml).toContain("Liquidity pool · 7 days");

    const records = await (await page("/pages/me/sub/loan-records", { headers: { cookie } })).text();
    expect(records).toContain('data-testid="loan-order"');
    expect(records).toContain("Pending settlement");
    expect(records).toContain('data-testid="loan-redeem"');
    expect(records).toContain("68.00");

    const miner = await (await page("/pages/me/sub/machine", { headers: { cookie } })).text();
    expect(miner).toContain('data-testid="miner-plan"');
    expect(miner).toContain('data-testid="miner-machine"');
    expect(miner).toContain('data-testid="miner-output"');

    const me = await (await page("/pages/me/index", { headers: { cookie } })).text();
    expect(me).toContain('href="/pages/me/sub/loan"');
    expect(me).toContain('href="/pages/me/sub/machine"');
  });
});
