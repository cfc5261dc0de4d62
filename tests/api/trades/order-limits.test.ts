/**
 * The order path's doors (decision 124): an account's orders in flight are capped by what its
 * balance covers, so an empty account cannot reserve a market's exposure; and orders are
 * limited per session and per network with a clear 429.
 */
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orders } from "../../../worker/db/schema";
import { call, db } from "../helpers";
import { market, price, user, USDT } from "./market-helpers";

const order = async (product_id: number, token: string, amount: string, headers: Record<string, string> = {}, direction: "up" | "down" = "up") =>
  call("/api/order/addorder", { product_id, direction, amount, seconds: 60, quote_price: await price(product_id) }, { token, headers });

const placedBy = async (user_id: number) => (await db.select({ n: sql<number>`count(*)` }).from(orders).where(eq(orders.user_id, user_id)))[0].n;

describe("in-flight stakes are capped by the balance", () => {
  it("an empty account's orders reserve nothing: a funded user's order beside them is taken", async () => {
    // 8000 bp: a 100 USDT "up" order adds 80 USDT to the platform's worst case; the limit takes one.
    const p = await market({ exposure_limit_micro: 100 * USDT });
    const empty = await user(0);
    const funded = await user(500);
    const crowd = Array.from({ length: 12 }, () => order(p.id, empty.token, "100"));
    const real = order(p.id, funded.token, "100");
    const answers = await Promise.all(crowd);
    expect(answers.map((a) => a.data.error)).toEqual(Array(12).fill("insufficient_funds"));
    const mine = await real;
    expect(mine.code, mine.msg).toBe(1);
    expect(await placedBy(empty.id)).toBe(0);
  });
});

describe("orders are limited per session and per network", () => {
  it("one session past 20 orders at once is told to wait (429), and nothing of those is written", async () => {
    const p = await market();
    const u = await user(1000);
    const answers = await Promise.all(Array.from({ length: 30 }, () => order(p.id, u.token, "1")));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(8);
    for (const r of refused) {
      expect(r.data.error).toBe("orders_too_fast");
      expect(r.data.retry_after_ms).toBeGreaterThan(0);
      expect(r.msg).toBe("Too many orders in a short time. Please wait a moment and try again.");
    }
    expect(await placedBy(u.id)).toBe(answers.length - refused.length);
    // In Thai too.
    const th = await call("/api/order/addorder", { product_id: p.id, direction: "up", amount: "1", seconds: 60, quote_price: await price(p.id), lang: "ty" }, { token: u.token });
    if (th.status === 429) expect(th.msg).toBe("ส่งคำสั่งมากเกินไปในเวลาสั้น ๆ โปรดรอสักครู่แล้วลองอีกครั้ง");
  });

  it("many sessions from one network share its limit; another network is not held back", async () => {
    const p = await market();
    const users = await Promise.all(Array.from({ length: 4 }, () => user(1000)));
    const net = { "cf-connecting-ip": "203.0.113.7" };
    const answers = await Promise.all(users.flatMap((u) => Array.from({ length: 20 }, () => order(p.id, u.token, "1", net))));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(5);
    expect(refused.every((a) => a.data.error === "orders_too_fast")).toBe(true);
    // The same users from elsewhere (their own sessions' buckets allow it once refilled).
    await new Promise((r) => setTimeout(r, 1_000));
    const other = await order(p.id, users[0].token, "1", { "cf-connecting-ip": "198.51.100.9" });
    expect(other.code, other.msg).toBe(1);
  });
});
