import { beforeAll, describe, expect, it } from "vitest";
import { call, page } from "../helpers";
import { operatorCookieFor } from "../money/cookies";
import { book, openPromotion, operators, userWithDeposit } from "./helpers";

let t: { op: string; op2: string };
beforeAll(async () => {
  t = await operators();
});

async function cookieFor(account: string, password: string) {
  const res = await page("/pages/user/login", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ account, password, path: "" }) });
  for (const c of res.headers.getSetCookie()) if (c.startsWith("pl_session=")) return c.split(";")[0];
  throw new Error("no session cookie");
}

/** The promotion pages through the whole Worker, signed in. */
describe("promotion pages", () => {
  it("the demo seed has one open recharge promotion; the activity page shows its terms in words and each state", async () => {
    const seeded = (await call("/api/admin/promotions", {}, { token: t.op })).data.items.find((p: any) => p.texts.en.title === "Welcome recharge bonus");
    expect(seeded).toMatchObject({ enabled: true, percent_bp: 1000, cap_micro: 50_000_000, min_deposit_micro: 100_000_000 });
    expect(Object.keys(seeded.texts)).toHaveLength(10);

    const id = await openPromotion(t);
    const u = await userWithDeposit(t.op, "100");
    const cookie = await cookieFor(u.account, u.password);
    const before = await page("/pages/me/sub/activity", { headers: { cookie } });
    expect(before.status).toBe(200);
    const html = await before.text();
    expect(html).toContain("Welcome recharge bonus");
    expect(html).toContain("You get 10.00% of one deposit&#x27;s credited amount, up to 50.00 USDT");
    expect(html).toContain('data-testid="promotion-book"');

    await book(u.token, id);
    await call("/api/admin/promotions/grant", { promotion_id: id, user_id: u.id, deposit_id: u.deposit_id }, { token: t.op });
    const after = await (await page("/pages/me/sub/activity", { headers: { cookie } })).text();
    expect(after).toMatch(/data-state="granted"/);
    expect(after).toContain("10.00 USDT was paid into your balance");

    const me = await (await page("/pages/me/index", { headers: { cookie } })).text();
    expect(me).toContain('href="/pages/me/sub/activity"');
  });

  it("the console page, the panel's resource route and the money settings field", async () => {
    const id = await openPromotion(t);
    const u = await userWithDeposit(t.op, "100");
    await book(u.token, id);
    const cookie = await operatorCookieFor(t.op);
    const console = await page("/admin/promotions", { headers: { cookie } });
    expect(console.status).toBe(200);
    const html = await console.text();
    expect(html).toContain('data-testid="promotion-row"');
    expect(html).toContain('href="/admin/promotions"');
    const panel = await page(`/admin/promotion-panel?user_id=${u.id}&promotion_id=${id}`, { headers: { cookie } });
    const body = (await panel.json()) as any;
    expect(body).toMatchObject({ code: 1, data: { booking: { status: "booked" } } });
    expect(body.data.deposits[0]).toMatchObject({ id: u.deposit_id, eligibility: "ok", bonus_micro: 10_000_000 });
    // Without an operator session the resource route answers the API's 401 envelope, no data.
    const anon = (await (await page(`/admin/promotion-panel?user_id=${u.id}&promotion_id=${id}`)).json()) as any;
    expect(anon).toMatchObject({ status: 401, code: 0 });
    const money = await (await page("/admin/money", { headers: { cookie } })).text();
    expect(money).toContain('data-testid="promotion-four-eyes-threshold"');
  });
});
