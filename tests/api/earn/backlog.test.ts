import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { pool_orders } from "../../../worker/db/schema";
import { MAX_DAY_STEPS } from "../../../worker/domain/earn/accrual";
import { checkLedger } from "../../../worker/domain/ledger/check";
import { db, seed } from "../helpers";
import { accrue, account, advance, buyPool, DAY, fundedUser, USDT, withProfile } from "./helpers";

beforeAll(() => seed());

/**
 * After a long downtime the backlog is larger than one run may do under D1's per-invocation
 * limits (enforced here): each run pays a bounded share and says there is more; the next runs
 * finish it, and nothing is paid twice.
 */
describe("accrual backlog", () => {
  it("drains 30 orders × 7 days over several bounded runs", async () => {
    const u = await fundedUser(3_000);
    await withProfile(u.id, "verified");
    for (let i = 0; i < 30; i++) expect((await buyPool(u.token, "100")).code).toBe(1);
    await advance(8 * DAY);
    const first = await accrue();
    expect(first.paid).toBeLessThanOrEqual(MAX_DAY_STEPS);
    expect(first.more).toBe(true);
    let runs = 1;
    for (let r = first; r.more && runs < 10; runs++) r = await accrue();
    expect(runs).toBeGreaterThanOrEqual(3);
    const orders = await db.select().from(pool_orders).where(eq(pool_orders.user_id, u.id));
    expect(orders.every((o) => o.status === "settled" && o.days_paid === 7)).toBe(true);
    // 30 × (100 back + 7 × 0.68) on top of nothing left available.
    expect(await account(u.id, "available")).toBe(30 * (100 * USDT + 7 * 680_000));
    expect(await account(u.id, "locked_pool")).toBe(0);
    expect((await checkLedger(db)).ok).toBe(true);
  });
});
