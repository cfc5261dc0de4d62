import { and, eq, like } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { ledger_transfers, pool_orders } from "../../../worker/db/schema";
import { checkLedger } from "../../../worker/domain/ledger/check";
import { call, db, newUser, seed } from "../helpers";
import { accrue, account, advance, buyPool, DAY, fundedUser, rkey, USDT, withProfile } from "./helpers";

const order = async (id: number) => (await db.query.pool_orders.findFirst({ where: eq(pool_orders.id, id) }))!;
const dayTransfers = async (id: number) => db.select().from(ledger_transfers).where(like(ledger_transfers.transfer_key, `pool:${id}:day:%`));
const ledgerOk = async () => expect((await checkLedger(db)).ok).toBe(true);

beforeAll(() => seed());

describe("pool products", () => {
  it("lists open products with percent rates; without type the market detail still answers", async () => {
    const r = await call("/api/index/product", { type: "pool" });
    expect(r.code).toBe(1);
    expect(r.data[0]).toMatchObject({ days: 7, daily_rate: "0.68", penalty_rate: "1" });
    const miner = await call("/api/index/product", { type: "miner" });
    expect(miner.data[0]).toMatchObject({ days: 30, stock: expect.any(Number) });
    const market = await call("/api/index/product", { id: 1 });
    expect(market.code).toBe(1);
    expect(market.data.symbol).toBeTruthy();
    expect((await call("/api/index/product", { type: "stocks" })).data.error).toBe("invalid_field");
  });
});

describe("profile gate", () => {
  it("refuses without a profile and with a rejected one; a submitted profile may buy", async () => {
    const u = await fundedUser(20_000);
    const none = await buyPool(u.token, "10000");
    expect(none.code).toBe(0);
    expect(none.data.error).toBe("profile_incomplete");
    expect(none.msg).toBe("Profile must be complete before first use of the loan service");
    await withProfile(u.id, "rejected");
    expect((await buyPool(u.token, "10000")).data.error).toBe("profile_rejected");
    await withProfile(u.id, "submitted");
    expect((await buyPool(u.token, "10000")).code).toBe(1);
    expect(await account(u.id, "locked_pool")).toBe(10_000 * USDT);
  });

  it("refuses amounts out of range and more than is available", async () => {
    const u = await fundedUser(500);
    await withProfile(u.id, "verified");
    expect((await buyPool(u.token, "99")).data.error).toBe("amount_out_of_range");
    expect((await buyPool(u.token, "600")).data.error).toBe("insufficient_funds");
    expect(await account(u.id, "available")).toBe(500 * USDT);
  });
});

describe("pool: buy, accrue, redeem, mature", () => {
  it("locks, pays one day once under concurrent and repeated runs, redeems with the penalty, matures another order", async () => {
    const a = await fundedUser(10_000);
    const b = await fundedUser(10_000);
    await withProfile(a.id, "submitted");
    await withProfile(b.id, "verified");

    // Buy → locked; the same key again is the same order, nothing moves twice.
    const key = rkey();
    const bought = await buyPool(a.token, "10000", key);
    expect(bought.code).toBe(1);
    expect((await buyPool(a.token, "10000", key)).data.id).toBe(bought.data.id);
    expect(await account(a.id, "available")).toBe(0);
    expect(await account(a.id, "locked_pool")).toBe(10_000 * USDT);
    const idA = bought.data.id as number;
    const idB = (await buyPool(b.token, "10000")).data.id as number;
    await ledgerOk();

    // +1 day: accrual three times at once, then again → day 1 paid once, 68.
    await advance(DAY);
    await Promise.all([accrue(), accrue(), accrue()]);
    await accrue();
    expect(await dayTransfers(idA)).toHaveLength(1);
    expect(await account(a.id, "available")).toBe(68 * USDT);
    expect((await order(idA)).days_paid).toBe(1);
    await ledgerOk();

    // +1 day more, no accrual run: the user's list catches up first (2 completed, 5 left).
    await advance(DAY);
    const list = await call("/api/index/orders", {}, { token: a.token });
    expect(list.data.items[0]).toMatchObject({ id: idA, status: "pending", profit: "136.00", days_paid: 2, daily_rate: "0.68" });

    // Early redemption with 5 days left: penalty 500, 9,500 back, rewards kept.
    const qx = await call("/api/index/qx", { id: idA }, { token: a.token });
    expect(qx.code).toBe(1);
    expect(qx.data).toMatchObject({ status: "redeemed", penalty_micro: 500 * USDT, redeem_amount_micro: 9_500 * USDT, profit_micro: 136 * USDT });
    expect(await account(a.id, "locked_pool")).toBe(0);
    expect(await account(a.id, "available")).toBe((9_500 + 136) * USDT);
    const again = await call("/api/index/qx", { id: idA }, { token: a.token });
    expect(again.data.error).toBe("already_closed");
    expect(await account(a.id, "available")).toBe((9_500 + 136) * USDT);
    await ledgerOk();

    // B after a gap of 5 more days (7 in all): caught up at once, principal back, settled.
    await advance(5 * DAY);
    const run = await accrue();
    expect(run.paid).toBeGreaterThanOrEqual(5);
    const settled = await order(idB);
    expect(settled).toMatchObject({ status: "settled", days_paid: 7, reward_paid_micro: 476 * USDT, redeem_amount_micro: 10_000 * USDT });
    expect(await dayTransfers(idB)).toHaveLength(7);
    expect(await account(b.id, "locked_pool")).toBe(0);
    expect(await account(b.id, "available")).toBe((10_000 + 476) * USDT);
    // Redeeming a settled order changes nothing; a redeemed one is not paid later days.
    expect((await call("/api/index/qx", { id: idB }, { token: b.token })).data.error).toBe("already_closed");
    expect(await dayTransfers(idA)).toHaveLength(2);
    await accrue();
    expect(await account(b.id, "available")).toBe((10_000 + 476) * USDT);
    await ledgerOk();
  });

  it("redeeming someone else's order is not found; redeeming before day 1 costs ratio × cycle", async () => {
    const u = await fundedUser(1_000);
    await withProfile(u.id, "submitted");
    const key = rkey();
    const id = (await buyPool(u.token, "1000", key)).data.id;
    // The same key with another body is refused, and moves nothing.
    expect((await buyPool(u.token, "500", key)).data.error).toBe("idempotency_conflict");
    const other = await newUser();
    expect((await call("/api/index/qx", { id }, { token: other.token })).status).toBe(404);
    expect((await db.query.pool_orders.findFirst({ where: and(eq(pool_orders.id, id)) }))!.status).toBe("pending");
    const qx = await call("/api/index/qx", { id }, { token: u.token });
    expect(qx.data).toMatchObject({ status: "redeemed", penalty_micro: 70 * USDT, redeem_amount_micro: 930 * USDT, profit_micro: 0 });
    expect(await account(u.id, "available")).toBe(930 * USDT);
    await ledgerOk();
  });
});
