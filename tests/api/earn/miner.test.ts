import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { miner_machines, miner_plans } from "../../../worker/db/schema";
import { saveMinerPlan } from "../../../worker/domain/earn/products";
import { checkLedger } from "../../../worker/domain/ledger/check";
import { call, db, seed } from "../helpers";
import { accrue, account, advance, DAY, fundedUser, rkey, USDT } from "./helpers";

const plan = async (id: number) => (await db.query.miner_plans.findFirst({ where: eq(miner_plans.id, id) }))!;
const buy = (token: string, product_id: number, key = rkey("m")) => call("/api/index/buy", { type: "miner", product_id }, { token, headers: { "idempotency-key": key } });

beforeAll(() => seed());

describe("cloud miner", () => {
  it("buys (stock − 1, price to the platform), and the first day's output shows in kjlist", async () => {
    const u = await fundedUser(1_000);
    const p = (await call("/api/index/product", { type: "miner" })).data[0];
    const key = rkey("m");
    const r = await buy(u.token, p.id, key);
    expect(r.code).toBe(1);
    expect((await buy(u.token, p.id, key)).data.id).toBe(r.data.id);
    expect((await plan(p.id)).stock).toBe(p.stock - 1);
    expect(await account(u.id, "available")).toBe(1_000 * USDT - p.price_micro);

    expect((await call("/api/index/kjlist", {}, { token: u.token })).data.total).toBe(0);
    await advance(DAY);
    await Promise.all([accrue(), accrue()]);
    const list = await call("/api/index/kjlist", { page_no: 1, row: 30 }, { token: u.token });
    expect(list.data.total).toBe(1);
    expect(list.data.items[0]).toMatchObject({ machine_id: r.data.id, day: 1, output_micro: p.daily_output_micro });
    expect(await account(u.id, "available")).toBe(1_000 * USDT - p.price_micro + p.daily_output_micro);
    const machines = await call("/api/index/machines", {}, { token: u.token });
    expect(machines.data[0]).toMatchObject({ id: r.data.id, days_paid: 1, output_micro: p.daily_output_micro, status: "running" });
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("sells the last unit once to concurrent buyers; the others pay nothing", async () => {
    const saved = await saveMinerPlan(db, null, null, { name: "Last one", price_micro: 50 * USDT, days: 2, daily_output_micro: 1 * USDT, stock: 1, enabled: true, sort: 9 }, "test", Date.now());
    if (saved.status !== "ok") throw new Error(saved.status);
    const buyers = await Promise.all([fundedUser(100), fundedUser(100), fundedUser(100)]);
    const results = await Promise.all(buyers.map((b) => buy(b.token, saved.row.id)));
    expect(results.filter((r) => r.code === 1)).toHaveLength(1);
    expect(results.filter((r) => r.data?.error === "out_of_stock")).toHaveLength(2);
    expect((await plan(saved.row.id)).stock).toBe(0);
    const balances = await Promise.all(buyers.map((b) => account(b.id, "available")));
    expect([...balances].sort((x, y) => x - y)).toEqual([50 * USDT, 100 * USDT, 100 * USDT]);
    expect(await db.select().from(miner_machines).where(eq(miner_machines.plan_id, saved.row.id))).toHaveLength(1);

    // The plan ends after its cycle: two days, then nothing more.
    const owner = buyers[balances.indexOf(50 * USDT)];
    await advance(3 * DAY);
    await accrue();
    const [m] = await db.select().from(miner_machines).where(eq(miner_machines.plan_id, saved.row.id));
    expect(m).toMatchObject({ status: "ended", days_paid: 2 });
    expect(await account(owner.id, "available")).toBe(52 * USDT);
    expect((await checkLedger(db)).ok).toBe(true);
  });
});
