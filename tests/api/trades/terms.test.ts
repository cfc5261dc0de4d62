/**
 * Terms need two people, and an order or a withdrawal carries the terms it was shown (decision
 * 121). Each attack of the review, replayed: one operator setting a 1,000 % payout and staking
 * both sides, raising the fee while a user sits on the confirmation sheet, and the same for a
 * withdrawal's fee.
 */
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orders, terms_proposals } from "../../../worker/db/schema";
import { getProduct } from "../../../worker/domain/trades/products";
import { openProposal } from "../../../worker/domain/terms/open";
import { MARKET_BOUNDS } from "../../../worker/domain/terms/bounds";
import { call, db, seed } from "../helpers";
import { balance, market, openTerms, operator, price, saveBody, secondOperator, user, USDT } from "./market-helpers";

const rate = (bp: number) => JSON.stringify([{ seconds: 60, profit_rate_bp: bp, min_amount: "1", max_amount: "10000" }]);

async function order(product_id: number, token: string, direction: "up" | "down", amount: string, extra: Record<string, unknown> = {}) {
  return call("/api/order/addorder", { product_id, direction, amount, seconds: 60, quote_price: await price(product_id), ...extra }, { token });
}

const ordersOf = async (user_id: number) => (await db.select({ n: sql<number>`count(*)` }).from(orders).where(eq(orders.user_id, user_id)))[0].n;

describe("terms stay within their published ranges", () => {
  it("a 1,000 % payout, a payout of 100 % or more, a fee above 5 % and an absurd exposure limit are refused", async () => {
    const op = await operator();
    const p = await market();
    const cases: [Record<string, unknown>, string][] = [
      [{ durations: rate(100_000) }, "profit_rate_bp"],
      [{ durations: rate(10_000) }, "profit_rate_bp"],
      [{ durations: rate(MARKET_BOUNDS.profit_rate_bp.max + 1) }, "profit_rate_bp"],
      [{ fee_rate_bp: 10_000 }, "fee_rate_bp"],
      [{ fee_rate_bp: 501 }, "fee_rate_bp"],
      [{ exposure_limit: "1000000000" }, "exposure_limit"],
      [{ quote_tolerance_bp: 5_000 }, "quote_tolerance_bp"],
    ];
    for (const [over, field] of cases) {
      const r = await call("/api/admin/products/save", saveBody(p, over), { token: op });
      expect(r.data.error, JSON.stringify(over)).toBe("terms_out_of_bounds");
      expect(r.data.field).toBe(field);
    }
    const de = await call("/api/admin/products/save", { ...saveBody(p, { fee_rate_bp: 900 }), lang: "dy" }, { token: op });
    expect(de.msg).toBe("Dieser Wert liegt außerhalb des veröffentlichten Bereichs (0 % bis 5 %).");
    expect(await db.select().from(terms_proposals).where(eq(terms_proposals.target, p.symbol))).toEqual([]);
    // Users can read the maxima.
    const bounds = await call("/api/index/terms_bounds");
    expect(bounds.data.market).toMatchObject({ profit_rate_bp: { max: 9_500 }, fee_rate_bp: { max: 500 } });
    expect(bounds.data.withdrawal).toMatchObject({ fee_rate_bp: { max: 300 } });
  });
});

describe("a market's terms need two operators", () => {
  it("one operator's new payout stands only as a proposal: orders keep the old one, and the proposer cannot open it", async () => {
    const op = await operator();
    const p = await market();
    const u = await user(1000);
    const proposed = await call("/api/admin/products/save", saveBody(p, { durations: rate(9_500) }), { token: op });
    expect(proposed.code).toBe(1);
    expect(proposed.msg).toMatch(/proposed/);
    // Both sides staked under the proposal: settled at the rate in force (80 %), so both together lose.
    const up = await order(p.id, u.token, "up", "100");
    const down = await order(p.id, u.token, "down", "100");
    expect([up.data.order.profit_rate_bp, down.data.order.profit_rate_bp]).toEqual([8000, 8000]);
    const self = await call(`/api/admin/terms/proposals/${proposed.data.proposal_id}/open`, {}, { token: op });
    expect(self.status).toBe(403);
    expect(self.data.error).toBe("terms_same_operator");
    expect((await getProduct(db, p.id))!.durations[0].profit_rate_bp).toBe(8000);
    // The console lists it with what would change.
    const pending = await call("/api/admin/terms/proposals", { kind: "market", target: p.symbol }, { token: op });
    expect(pending.data).toMatchObject([{ id: proposed.data.proposal_id, status: "pending", changes: [{ field: "durations", before: "60 s · 80 % · 1.00–10000.00", after: "60 s · 95 % · 1.00–10000.00" }] }]);
  });

  it("new trading hours are a proposal too: the market keeps trading until a second operator opens them", async () => {
    const op = await operator();
    const p = await market();
    const u = await user(1000);
    // A one-minute window two hours from now (UTC): once in force, the market is closed now.
    const hhmm = (m: number) => `${String(Math.floor(m / 60) % 24).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
    const from = Math.floor((Date.now() % 86_400_000) / 60_000) + 120;
    const hours = `${hhmm(from)}-${hhmm(from + 1)}`;
    const proposed = await call("/api/admin/products/save", saveBody(p, { trading_hours: hours }), { token: op });
    expect(proposed.code).toBe(1);
    expect(proposed.msg).toMatch(/proposed/);
    expect((await getProduct(db, p.id))!.trading_hours).toBe("");
    expect((await order(p.id, u.token, "up", "10")).code).toBe(1);
    const self = await call(`/api/admin/terms/proposals/${proposed.data.proposal_id}/open`, {}, { token: op });
    expect(self.data.error).toBe("terms_same_operator");
    await openTerms(proposed.data.proposal_id);
    expect((await getProduct(db, p.id))!.trading_hours).toBe(hours);
    const closed = await order(p.id, u.token, "up", "10");
    expect(closed.code).not.toBe(1);
    expect(closed.data.error).toBe("market_closed");
  });

  it("an order that names the terms it was shown is refused once other terms are in force, and nothing is written", async () => {
    const op = await operator();
    const p = await market();
    const u = await user(100);
    const shown = (await call("/api/index/product", { id: p.id })).data;
    expect(shown.terms_version).toBe(1);
    // The fee rises from 1 % to 5 % while the user sits on the sheet.
    const raised = await call("/api/admin/products/save", saveBody(p, { fee_rate_bp: 500 }), { token: op });
    await openTerms(raised.data.proposal_id);
    const before = await balance(u.token);
    const r = await order(p.id, u.token, "up", "50", { terms_version: shown.terms_version });
    expect(r.data.error).toBe("terms_changed");
    expect(r.msg).toBe("The market's terms changed while you were deciding. Nothing was placed: check the new payout and fee, then confirm again.");
    expect(r.data.terms_version).toBe(2);
    expect(await balance(u.token)).toEqual(before);
    expect(await ordersOf(u.id)).toBe(0);
    // At the new terms, named, it goes through and says which terms it took.
    const again = await order(p.id, u.token, "up", "50", { terms_version: 2 });
    expect(again.code).toBe(1);
    expect(again.data.order).toMatchObject({ terms_version: 2, fee: "2.50" });
    // Without a version (API clients, the seed) the terms in force apply.
    expect((await order(p.id, u.token, "up", "10")).data.order.terms_version).toBe(2);
  });

  it("a hub still holding old terms cannot write an order under them: the database refuses, the hub reads them again", async () => {
    const op = await operator();
    const p = await market();
    const u = await user(100);
    expect((await order(p.id, u.token, "up", "10")).code).toBe(1);
    const raised = await call("/api/admin/products/save", saveBody(p, { fee_rate_bp: 300 }), { token: op });
    // The save reloaded the hub: this order has it read version 1 again.
    expect((await order(p.id, u.token, "up", "10")).data.order.terms_version).toBe(1);
    // Opened behind the hub's back (no reload message): its memory still says version 1.
    const opened = await openProposal(db, (await db.all<{ id: number }>(sql`SELECT id FROM operators WHERE account = 'marketsop2'`))[0].id, raised.data.proposal_id, Date.now());
    expect(opened.status).toBe("ok");
    const stale = await order(p.id, u.token, "up", "10");
    expect(stale.data.error).toBe("terms_changed");
    const next = await order(p.id, u.token, "up", "10");
    expect(next.code).toBe(1);
    expect(next.data.order).toMatchObject({ terms_version: 2, fee: "0.30" });
  });

  it("a proposal made against older terms cannot be opened over newer ones; anyone may decline it", async () => {
    const op = await operator();
    const p = await market();
    const a = await call("/api/admin/products/save", saveBody(p, { fee_rate_bp: 200 }), { token: op });
    const b = await call("/api/admin/products/save", saveBody(p, { fee_rate_bp: 300 }), { token: op });
    await openTerms(b.data.proposal_id);
    const other = await secondOperator();
    const stale = await call(`/api/admin/terms/proposals/${a.data.proposal_id}/open`, {}, { token: other });
    expect(stale.data.error).toBe("terms_stale");
    expect((await getProduct(db, p.id))!.fee_rate_bp).toBe(300);
    expect((await call(`/api/admin/terms/proposals/${a.data.proposal_id}/decline`, { reason: " " }, { token: op })).data.error).toBe("incomplete");
    expect((await call(`/api/admin/terms/proposals/${a.data.proposal_id}/decline`, { reason: "superseded" }, { token: op })).code).toBe(1);
    expect((await call(`/api/admin/terms/proposals/${a.data.proposal_id}/open`, {}, { token: other })).status).toBe(409);
    // Decided proposals are kept as they were.
    const refused = await db.run(sql`UPDATE terms_proposals SET status = 'pending' WHERE id = ${a.data.proposal_id}`).then(() => "", (e: Error) => String(e.cause ?? e));
    expect(refused).toMatch(/terms_proposals are kept/);
  });

  it("the database refuses a change of terms that skips the proposal", async () => {
    await seed();
    const p = await market();
    const fail = (q: Promise<unknown>) => q.then(() => "", (e: { message?: string; cause?: { message?: string } }) => `${e.message} ${e.cause?.message ?? ""}`);
    expect(await fail(db.run(sql`UPDATE products SET fee_rate_bp = 400 WHERE id = ${p.id}`))).toMatch(/products_terms_need_two/);
    expect(await fail(db.run(sql`UPDATE products SET fee_rate_bp = 400, terms_version = terms_version + 1, terms_by = 7, terms_opened_by = 7 WHERE id = ${p.id}`))).toMatch(/products_terms_need_two/);
    expect(await fail(db.run(sql`UPDATE product_durations SET profit_rate_bp = 9999 WHERE product_id = ${p.id}`))).toMatch(/products_terms_need_two/);
    expect(await fail(db.run(sql`DELETE FROM product_durations WHERE product_id = ${p.id}`))).toMatch(/products_terms_need_two/);
    expect(await fail(db.run(sql`INSERT INTO product_durations (product_id, seconds, profit_rate_bp, min_stake_micro, max_stake_micro, terms_version) VALUES (${p.id}, 7, 9999, 1, 2, 0)`))).toMatch(/products_terms_need_two/);
    expect(await fail(db.run(sql`UPDATE withdrawal_rules SET fee_rate_bp = 9000 WHERE channel = 'trc20'`))).toMatch(/withdrawal_rules_terms_need_two/);
    const product = (await getProduct(db, p.id))!;
    expect([product.fee_rate_bp, product.durations[0].profit_rate_bp]).toEqual([100, 8000]);
    // The two-people rule of a decided proposal.
    expect(await fail(db.run(sql`INSERT INTO terms_proposals (kind, target, terms_json, base_version, reason, proposed_by, proposed_at_ms, status, decided_by, opened_version) VALUES ('market', ${p.symbol}, '{}', 1, 'x', 5, 0, 'opened', 5, 2)`))).toMatch(/terms_proposals_two_people/);
    expect((await db.select().from(orders).where(and(eq(orders.product_id, p.id)))).length).toBe(0);
  });
});
