import { beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../scripts/seed-demo";
import { serverNow } from "../../worker/clock";
import { miner_machines, miner_outputs, pool_orders } from "../../worker/db/schema";
import { utcMidnight } from "../../worker/domain/earn/holdings";
import { postTransfers } from "../../worker/domain/ledger/transfer";
import { call, db, newUser, operatorToken, page, seed, testEnv } from "./helpers";
import { operatorCookieFor } from "./money/cookies";

const USDT = 1_000_000;
const DAY = 86_400_000;
let token = "";
/** The second operator: whoever set a product's terms cannot open it. */
let token2 = "";

beforeAll(async () => {
  await seed();
  token = await operatorToken(DEMO.operator.account);
  token2 = await operatorToken(DEMO.operator2.account);
});

const pool = (over: Record<string, unknown> = {}) => ({ name: "Pool · test", days: 7, daily_rate: "0.68", min_amount: "100", max_amount: "10000.50", penalty_rate: "1", enabled: "1", reason: "new offer", ...over });
const plan = (over: Record<string, unknown> = {}) => ({ name: "Miner · test", price: "300", days: 30, daily_output: "12.5", stock: 10, enabled: "1", reason: "new plan", ...over });
// The audit filter matches a prefix without "_" (it strips LIKE wildcards), hence "pool" / "miner".
const list = async () => (await call("/api/admin/earn", {}, { token })).data as { pool: any[]; miner: any[] };

/** A pending pool order under `product_id`, as the purchase would write it (terms copied). */
async function insertPoolOrder(user_id: number, product_id: number, started_at_ms: number, over: Partial<typeof pool_orders.$inferInsert> = {}) {
  const [row] = await db
    .insert(pool_orders)
    .values({ user_id, product_id, amount_micro: 10_000 * USDT, days: 7, daily_rate_bp: 68, penalty_rate_bp: 100, started_at_ms, expires_at_ms: started_at_ms + 7 * DAY, status: "pending", request_key: crypto.randomUUID(), request_hash: "test", ...over })
    .returning();
  return row;
}

async function insertMachine(user_id: number, plan_id: number, started_at_ms: number, over: Partial<typeof miner_machines.$inferInsert> = {}) {
  const [row] = await db
    .insert(miner_machines)
    .values({ user_id, plan_id, price_micro: 300 * USDT, days: 30, daily_output_micro: 2_500_000, started_at_ms, ends_at_ms: started_at_ms + 30 * DAY, status: "running", request_key: crypto.randomUUID(), request_hash: "test", ...over })
    .returning();
  return row;
}

describe("earn console API", () => {
  it("needs an operator session", async () => {
    const u = await newUser();
    expect((await call("/api/admin/earn", {})).status).toBe(401);
    expect((await call("/api/admin/earn", {}, { token: u.token })).status).toBe(401);
    expect((await call(`/api/admin/users/${u.id}/earn`, {}, { token: u.token })).status).toBe(401);
  });

  it("creates a pool product from percent and USDT text, audited with the reason", async () => {
    const r = await call("/api/admin/earn/pool/save", pool({ name: "Pool · create" }), { token });
    expect(r.code).toBe(1);
    const p = (await list()).pool.find((x) => x.id === r.data.id);
    // Made closed: the operator who set the terms cannot open it; a second operator does.
    expect(p).toMatchObject({ name: "Pool · create", days: 7, daily_rate: "0.68", daily_rate_bp: 68, penalty_rate_bp: 100, min_amount_micro: 100 * USDT, max_amount_micro: 10_000_500_000, enabled: false, running: 0 });
    expect((await call(`/api/admin/earn/pool/${r.data.id}/enabled`, { enabled: "1", reason: "launch" }, { token })).data.error).toBe("earn_open_four_eyes");
    expect((await list()).pool.find((x) => x.id === r.data.id).enabled).toBe(false);
    expect((await call(`/api/admin/earn/pool/${r.data.id}/enabled`, { enabled: "1", reason: "checked the terms" }, { token: token2 })).code).toBe(1);
    expect((await list()).pool.find((x) => x.id === r.data.id).enabled).toBe(true);
    // New terms close it again until someone else opens it.
    expect((await call("/api/admin/earn/pool/save", pool({ id: r.data.id, name: "Pool · create", daily_rate: "0.7" }), { token: token2 })).code).toBe(1);
    expect((await list()).pool.find((x) => x.id === r.data.id)).toMatchObject({ enabled: false, daily_rate_bp: 70 });
    expect((await call(`/api/admin/earn/pool/${r.data.id}/enabled`, { enabled: "1", reason: "launch" }, { token: token2 })).data.error).toBe("earn_open_four_eyes");
    expect((await call(`/api/admin/earn/pool/${r.data.id}/enabled`, { enabled: "1", reason: "checked" }, { token })).code).toBe(1);
    // Action names have underscores: the filter takes them literally.
    const audit = await call("/api/admin/audit", { action: "pool_product." }, { token });
    expect((await call("/api/admin/audit", { action: "pool%product" }, { token })).data.total).toBe(0);
    expect(audit.data.items.find((i: { action: string; target: string }) => i.action === "pool_product.create" && i.target === `pool_product:${r.data.id}`)).toMatchObject({ reason: "new offer", operator: "operator" });
  });

  it("creates a miner plan, audited", async () => {
    const r = await call("/api/admin/earn/miner/save", plan({ name: "Miner · create" }), { token });
    expect(r.code).toBe(1);
    expect((await list()).miner.find((x) => x.id === r.data.id)).toMatchObject({ price_micro: 300 * USDT, daily_output_micro: 12_500_000, days: 30, stock: 10, enabled: false });
    expect((await call(`/api/admin/earn/miner/${r.data.id}/enabled`, { enabled: "1", reason: "launch" }, { token })).data.error).toBe("earn_open_four_eyes");
    expect((await call(`/api/admin/earn/miner/${r.data.id}/enabled`, { enabled: "1", reason: "checked" }, { token: token2 })).code).toBe(1);
    const audit = await call("/api/admin/audit", { action: "miner" }, { token });
    expect(audit.data.items.find((i: { action: string; target: string }) => i.action === "miner_plan.create" && i.target === `miner_plan:${r.data.id}`)).toMatchObject({ reason: "new plan" });
  });

  it("refuses bad input with a localized message, never a 500", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [pool({ daily_rate: "0.681" }), "earn_rate_invalid"],
      [pool({ daily_rate: "0" }), "earn_rate_invalid"],
      [pool({ penalty_rate: "101" }), "earn_rate_invalid"],
      [pool({ min_amount: "1.234" }), "amount_decimals"],
      [pool({ min_amount: "500", max_amount: "100" }), "earn_max_below_min"],
      [pool({ days: 0 }), "invalid_field"],
      [pool({ days: 3651 }), "invalid_field"],
      [pool({ reason: " " }), "incomplete"],
      [pool({ name: { x: 1 } }), "invalid_field"],
    ];
    for (const [body, error] of cases) {
      const r = await call("/api/admin/earn/pool/save", body, { token });
      expect(r.status, JSON.stringify(body)).toBeLessThan(500);
      expect([r.code, r.data.error], JSON.stringify(body)).toEqual([0, error]);
    }
    expect((await call("/api/admin/earn/miner/save", plan({ stock: -1 }), { token })).data.error).toBe("invalid_field");
    expect((await call("/api/admin/earn/miner/save", plan({ price: "0" }), { token })).code).toBe(0);
    const de = await call("/api/admin/earn/pool/save", pool({ daily_rate: "abc" }), { token, headers: { lang: "de" } });
    expect(de.msg).toContain("Prozent");
    // A penalty ratio of zero is a valid offer (no charge for early redemption).
    expect((await call("/api/admin/earn/pool/save", pool({ penalty_rate: "0" }), { token })).code).toBe(1);
  });

  it("locks terms while an order runs; the name and the open switch still change; close keeps terms", async () => {
    const u = await newUser();
    const { data } = await call("/api/admin/earn/pool/save", pool({ name: "Pool · locked" }), { token });
    const id = data.id as number;
    expect((await call(`/api/admin/earn/pool/${id}/enabled`, { enabled: "1", reason: "checked" }, { token: token2 })).code).toBe(1);
    await insertPoolOrder(u.id, id, await serverNow(testEnv, db));
    expect((await list()).pool.find((x) => x.id === id).running).toBe(1);

    const locked = await call("/api/admin/earn/pool/save", pool({ id, daily_rate: "0.7" }), { token, headers: { lang: "zh" } });
    expect([locked.code, locked.data.error]).toEqual([0, "earn_terms_locked"]);
    expect(locked.msg).toContain("新建产品");
    const renamed = await call("/api/admin/earn/pool/save", pool({ id, name: "Pool · renamed", reason: "clearer name" }), { token });
    expect(renamed.code).toBe(1);

    const closed = await call(`/api/admin/earn/pool/${id}/enabled`, { enabled: "0", reason: "sold out" }, { token });
    expect(closed.code).toBe(1);
    const p = (await list()).pool.find((x) => x.id === id);
    expect(p).toMatchObject({ name: "Pool · renamed", enabled: false, daily_rate_bp: 68, days: 7 });
    expect((await call(`/api/admin/earn/pool/${id}/enabled`, { enabled: "1" }, { token })).data.error).toBe("incomplete");
    expect((await call("/api/admin/earn/pool/999999/enabled", { enabled: "0", reason: "x" }, { token })).status).toBe(404);
  });

  it("locks a miner plan's terms while a machine runs; closing it works", async () => {
    const u = await newUser();
    const { data } = await call("/api/admin/earn/miner/save", plan({ name: "Miner · locked" }), { token });
    expect((await call(`/api/admin/earn/miner/${data.id}/enabled`, { enabled: "1", reason: "checked" }, { token: token2 })).code).toBe(1);
    await insertMachine(u.id, data.id, await serverNow(testEnv, db));
    expect((await call("/api/admin/earn/miner/save", plan({ id: data.id, price: "301" }), { token })).data.error).toBe("earn_terms_locked");
    expect((await call("/api/admin/earn/miner/save", plan({ id: data.id, stock: 0, reason: "no more" }), { token })).code).toBe(1);
    expect((await call(`/api/admin/earn/miner/${data.id}/enabled`, { enabled: "0", reason: "retired" }, { token })).code).toBe(1);
    expect((await list()).miner.find((x) => x.id === data.id)).toMatchObject({ enabled: false, stock: 0, price_micro: 300 * USDT });
    const audit = await call("/api/admin/audit", { action: "miner" }, { token });
    expect(audit.data.items[0]).toMatchObject({ target: `miner_plan:${data.id}`, reason: "retired" });
  });

  it("answers a user's holdings: orders and machines with days paid and paid so far", async () => {
    const u = await newUser();
    const other = await newUser();
    const now = await serverNow(testEnv, db);
    const { data: p } = await call("/api/admin/earn/pool/save", pool({ name: "Pool · holdings" }), { token });
    const { data: m } = await call("/api/admin/earn/miner/save", plan({ name: "Miner · holdings" }), { token });
    const order = await insertPoolOrder(u.id, p.id, now - 3 * DAY, { days_paid: 2, reward_paid_micro: 136 * USDT });
    const machine = await insertMachine(u.id, m.id, now - 2 * DAY, { days_paid: 2 });
    await db.insert(miner_outputs).values([
      { machine_id: machine.id, user_id: u.id, day: 1, output_micro: 2_500_000, credited_at_ms: now - DAY },
      { machine_id: machine.id, user_id: u.id, day: 2, output_micro: 2_500_000, credited_at_ms: now },
    ]);
    await insertPoolOrder(other.id, p.id, now);

    const r = await call(`/api/admin/users/${u.id}/earn`, {}, { token });
    expect(r.code).toBe(1);
    expect(r.data.pool).toHaveLength(1);
    expect(r.data.pool[0]).toMatchObject({ id: order.id, product_name: "Pool · holdings", amount: "10000.00", days: 7, days_paid: 2, daily_rate: "0.68", reward_paid: "136.00", status: "pending" });
    expect(r.data.miner).toHaveLength(1);
    expect(r.data.miner[0]).toMatchObject({ id: machine.id, plan_name: "Miner · holdings", days_paid: 2, output: "5.00", output_micro: 5_000_000, status: "running" });
    expect((await call(`/api/admin/users/${(await newUser()).id}/earn`, {}, { token })).data).toEqual({ pool: [], miner: [] });
    expect((await call("/api/admin/users/abc/earn", {}, { token })).status).toBe(404);
  });

  it("overview: locked in the pool, rewards paid since UTC midnight, rewards due in 24 h", async () => {
    const before = (await call("/api/admin/overview", {}, { token })).data;
    const u = await newUser();
    const now = await serverNow(testEnv, db);
    const midnight = utcMidnight(now);
    const ref = { ref_type: "test", ref_id: String(u.id) };
    const t = (key: string, code: string, amount_micro: number, credit: `user:${number}:${"available" | "locked_pool"}`) => ({ key: `${key}:${u.id}`, debit: "platform:rewards" as const, credit, amount_micro, code, ...ref });
    expect((await postTransfers(db, [t("lock", "pool_lock", 1000 * USDT, `user:${u.id}:locked_pool`)], [], now)).status).toBe("ok");
    expect((await postTransfers(db, [t("reward", "pool_reward", 12_340_000, `user:${u.id}:available`), t("output", "miner_output", 5 * USDT, `user:${u.id}:available`)], [], now)).status).toBe("ok");
    // Paid yesterday (one ms before UTC midnight), and an unrelated code today: neither counts.
    expect((await postTransfers(db, [t("old", "pool_reward", 7 * USDT, `user:${u.id}:available`)], [], midnight - 1)).status).toBe("ok");
    expect((await postTransfers(db, [t("other", "adjustment_credit", 9 * USDT, `user:${u.id}:available`)], [], now)).status).toBe("ok");

    const { data: p } = await call("/api/admin/earn/pool/save", pool({ name: "Pool · overview" }), { token });
    const { data: m } = await call("/api/admin/earn/miner/save", plan({ name: "Miner · overview" }), { token });
    await insertPoolOrder(u.id, p.id, now - 1000); // day 1 completes within 24 h: 68 USDT
    await insertPoolOrder(u.id, p.id, now + 1000); // day 1 completes just after: nothing due
    await insertPoolOrder(u.id, p.id, now - 5 * DAY, { status: "settled", days_paid: 7 }); // over: nothing due
    await insertMachine(u.id, m.id, now - DAY / 2); // 2.5 USDT
    await insertMachine(u.id, m.id, now - DAY / 2, { status: "ended" });

    const after = (await call("/api/admin/overview", {}, { token })).data;
    expect(after.earn_locked_micro - before.earn_locked_micro).toBe(1000 * USDT);
    expect(after.earn_paid_today_micro - before.earn_paid_today_micro).toBe(17_340_000);
    expect(after.earn_due_24h_micro - before.earn_due_24h_micro).toBe(70_500_000);
  });

  it("console pages render for an operator: earn products, overview figures, the user's Earn section", async () => {
    const cookie = await operatorCookieFor(token);
    const u = await newUser();
    const { data: p } = await call("/api/admin/earn/pool/save", pool({ name: "Pool · page" }), { token });
    await insertPoolOrder(u.id, p.id, await serverNow(testEnv, db));

    const earn = await page("/admin/earn", { headers: { cookie } });
    expect(earn.status).toBe(200);
    const html = await earn.text();
    expect(html).toContain('data-testid="earn-page"');
    expect(html).toContain("Pool · page");
    expect(html).toContain('data-testid="earn-terms-locked"');
    expect(html).toContain('data-testid="earn-miner-new"');

    const overview = await (await page("/admin", { headers: { cookie } })).text();
    expect(overview).toContain('data-testid="stat-earn-locked"');
    expect(overview).toContain('data-testid="stat-earn-due"');

    const user = await (await page(`/admin/users/${u.id}`, { headers: { cookie } })).text();
    expect(user).toContain('data-testid="user-earn"');
    expect(user).toContain('data-testid="user-earn-pool-row"');

    expect((await page("/admin/earn")).status).toBe(302);
  });
});
