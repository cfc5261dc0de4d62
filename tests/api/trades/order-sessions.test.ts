/**
 * Decision 106: an order's session is resolved in its symbol's hub, from memory. Every way a
 * session ends must still refuse the very next order under it, on a hub that has already
 * cached that session, and nothing of a refused order is written.
 */
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { orders } from "../../../worker/db/schema";
import { call, db } from "../helpers";
import { rkey } from "../money/helpers";
import { market, user, USDT } from "./market-helpers";

let PRODUCT = 0;

beforeAll(async () => {
  PRODUCT = (await market({ durations: [{ seconds: 60, profit_rate_bp: 8500, min_stake_micro: 10 * USDT, max_stake_micro: 1000 * USDT }] })).id;
});

async function order(token: string) {
  const price = (await call("/api/index/product", { id: PRODUCT })).data.price as string;
  const key = rkey("sess");
  const r = await call("/api/order/addorder", { product_id: PRODUCT, direction: "up", amount: "10", seconds: 60, quote_price: price, client_order_id: key }, { token });
  return { r, key };
}

async function written(user_id: number, key: string) {
  return (await db.select().from(orders).where(and(eq(orders.user_id, user_id), eq(orders.request_key, `client:${key}`)))).length;
}

async function secondSession(account: string) {
  const r = await call("/api/user/login", { account, password: "secret123" });
  expect(r.code).toBe(1);
  return r.data.userinfo.token as string;
}

async function accountOf(token: string) {
  return (await call("/api/user/user", {}, { token })).data.account as string;
}

describe("an order's session, resolved in the hub", () => {
  it("places under a live session, and refuses a missing or unknown token with 401", async () => {
    const u = await user(100);
    expect((await order(u.token)).r.code).toBe(1);
    const none = await call("/api/order/addorder", { product_id: PRODUCT, direction: "up", amount: "10", seconds: 60, quote_price: "1" });
    expect(none.status).toBe(401);
    const unknown = await order("not-a-session-token-at-all");
    expect(unknown.r.status).toBe(401);
    expect(unknown.r.data.error).toBe("unauthorized");
  });

  it("sign-out refuses the very next order, with nothing written", async () => {
    const u = await user(100);
    expect((await order(u.token)).r.code).toBe(1);
    expect((await call("/api/user/logout", {}, { token: u.token })).code).toBe(1);
    const { r, key } = await order(u.token);
    expect(r.status).toBe(401);
    expect(await written(u.id, key)).toBe(0);
  });

  it("ending one other device, or all others, refuses their very next order", async () => {
    const u = await user(100);
    const account = await accountOf(u.token);
    const laptop = await secondSession(account);
    const tablet = await secondSession(account);
    expect((await order(laptop)).r.code).toBe(1);
    expect((await order(tablet)).r.code).toBe(1);
    const list = (await call("/api/user/sessions", {}, { token: u.token })).data.list as { id: string; current: boolean; created_at: number }[];
    // The newest session is the tablet's: end the laptop's (the one before it) by its id.
    const others = list.filter((s) => !s.current);
    expect(others).toHaveLength(2);
    const ended = await call("/api/user/sessions/revoke", { id: others[others.length - 1].id }, { token: u.token });
    expect(ended.code).toBe(1);
    const after = await Promise.all([order(laptop), order(tablet)]);
    expect(after.map((a) => a.r.status).sort()).toEqual([200, 401]);
    expect((await call("/api/user/sessions/revoke", { all_others: 1 }, { token: u.token })).code).toBe(1);
    for (const t of [laptop, tablet]) expect((await order(t)).r.status).toBe(401);
    expect((await order(u.token)).r.code).toBe(1);
  });

  it("a password change refuses the other sessions' very next order", async () => {
    const u = await user(100);
    const other = await secondSession(await accountOf(u.token));
    expect((await order(other)).r.code).toBe(1);
    expect((await call("/api/user/reset_login_pwd", { old_password: "secret123", new_password: "newpass456" }, { token: u.token })).code).toBe(1);
    const { r, key } = await order(other);
    expect(r.status).toBe(401);
    expect(await written(u.id, key)).toBe(0);
    expect((await order(u.token)).r.code).toBe(1);
  });
});
