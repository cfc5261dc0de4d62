import { beforeAll, describe, expect, it } from "vitest";
import { call, newUser, testEnv } from "../helpers";
import { recharge } from "../money/helpers";
import { approvedDeposit, book, openPromotion, operators, stateOf, USDT, userWithDeposit } from "./helpers";

let t: { op: string; op2: string };

beforeAll(async () => {
  t = await operators();
});

const grant = (token: string, body: Record<string, unknown>) => call("/api/admin/promotions/grant", body, { token });

/** The promotion_bonus transfers of one user (the ledger is the only truth about money paid). */
async function bonusTransfers(user_id: number) {
  const r = await testEnv.DB.prepare(
    "SELECT t.amount_micro, t.ref_type, t.ref_id FROM ledger_transfers t JOIN ledger_accounts a ON a.id = t.credit_account_id WHERE t.code = 'promotion_bonus' AND a.account_key = ?",
  )
    .bind(`user:${user_id}:available`)
    .all<{ amount_micro: number; ref_type: string; ref_id: string }>();
  return r.results;
}

async function available(token: string) {
  return (await call("/api/user/user", {}, { token })).data.balance_micro as number;
}

describe("granting a recharge bonus", () => {
  it("pays min(credited × percent, cap) exactly once under 10 concurrent grants", async () => {
    const id = await openPromotion(t);
    const u = await userWithDeposit(t.op, "123.45");
    expect((await book(u.token, id)).code).toBe(1);
    const before = await available(u.token);
    // An operator cannot choose the amount: an `amount` field is ignored, the bonus comes from the deposit.
    const answers = await Promise.all(Array.from({ length: 10 }, () => grant(t.op, { promotion_id: id, user_id: u.id, deposit_id: u.deposit_id, amount: "50" })));
    expect(answers.filter((a) => a.code === 1)).toHaveLength(1);
    expect(new Set(answers.filter((a) => a.code === 0).map((a) => a.data.error))).toEqual(new Set(["state_conflict"]));
    // 10 % of 123.45 = 12.345, rounded down to the micro-unit.
    expect(await bonusTransfers(u.id)).toEqual([{ amount_micro: 12_345_000, ref_type: "promotion", ref_id: `${id}:deposit:${u.deposit_id}` }]);
    expect((await available(u.token)) - before).toBe(12_345_000);
    expect(await stateOf(u.token, id)).toMatchObject({ state: "granted", bonus: "12.345", bonus_micro: 12_345_000 });
    // A paid booking is history: the database refuses to change it.
    await expect(testEnv.DB.prepare("UPDATE promotion_bookings SET bonus_micro = 1 WHERE promotion_id = ? AND user_id = ?").bind(id, u.id).run()).rejects.toThrow(/immutable/);
    // The statement shows it under its own reason.
    const lines = (await call("/api/user/records", {}, { token: u.token })).data;
    expect(JSON.stringify(lines)).toContain("promotion_bonus");
  });

  it("caps the bonus and needs a different operator at or above the threshold (also in the database)", async () => {
    const id = await openPromotion(t, { cap: "40" });
    const threshold = await call("/api/admin/promotion_four_eyes", { threshold: "30", reason: "stricter for the test" }, { token: t.op });
    expect(threshold.code).toBe(1);
    const u = await userWithDeposit(t.op, "1000");
    await book(u.token, id);
    const first = await grant(t.op, { promotion_id: id, user_id: u.id, deposit_id: u.deposit_id });
    expect(first).toMatchObject({ code: 1, data: { status: "pending", bonus_micro: 40 * USDT } });
    expect(await bonusTransfers(u.id)).toEqual([]);
    // The user is told it is booked, never an amount that has not been paid.
    expect(await stateOf(u.token, id)).toMatchObject({ state: "booked", bonus: null });
    const pending = (await call("/api/admin/promotions", {}, { token: t.op })).data.pending as any[];
    expect(pending.map((b) => b.id)).toContain(first.data.id);

    const same = await call(`/api/admin/promotions/bookings/${first.data.id}/confirm`, {}, { token: t.op });
    expect(same).toMatchObject({ status: 403, code: 0, data: { error: "promotion_four_eyes_same" } });
    // The CHECK refuses the same in SQL, whatever code path tried it.
    await expect(
      testEnv.DB.prepare("UPDATE promotion_bookings SET status = 'granted', confirmed_by = granted_by WHERE id = ?").bind(first.data.id).run(),
    ).rejects.toThrow(/promotion_bookings_four_eyes/);
    await expect(testEnv.DB.prepare("UPDATE promotion_bookings SET status = 'granted' WHERE id = ?").bind(first.data.id).run()).rejects.toThrow(/promotion_bookings_large_needs_two/);

    const confirmed = await call(`/api/admin/promotions/bookings/${first.data.id}/confirm`, {}, { token: t.op2 });
    expect(confirmed).toMatchObject({ code: 1, data: { status: "granted" } });
    expect((await bonusTransfers(u.id)).map((x) => x.amount_micro)).toEqual([40 * USDT]);
    expect((await call(`/api/admin/promotions/bookings/${first.data.id}/confirm`, {}, { token: t.op2 })).data.error).toBe("state_conflict");
    // Below the threshold one operator pays at once.
    const small = await userWithDeposit(t.op, "100");
    await book(small.token, id);
    expect((await grant(t.op, { promotion_id: id, user_id: small.id, deposit_id: small.deposit_id })).data.status).toBe("granted");
    expect((await bonusTransfers(small.id)).map((x) => x.amount_micro)).toEqual([10 * USDT]);
    await call("/api/admin/promotion_four_eyes", { threshold: "500", reason: "back to the default" }, { token: t.op2 });
  });

  it("a proposed bonus rejected by the second operator is declined with its reason, unpaid, and frees the deposit", async () => {
    const a = await openPromotion(t, { cap: "40" });
    const b = await openPromotion(t, { cap: "40" });
    await call("/api/admin/promotion_four_eyes", { threshold: "30", reason: "stricter for the test" }, { token: t.op });
    const u = await userWithDeposit(t.op, "1000");
    await book(u.token, a);
    await book(u.token, b);
    const proposed = await grant(t.op, { promotion_id: a, user_id: u.id, deposit_id: u.deposit_id });
    expect(proposed.data.status).toBe("pending");
    // While it is proposed, the deposit backs nothing else.
    expect((await grant(t.op, { promotion_id: b, user_id: u.id, deposit_id: u.deposit_id })).data.error).toBe("promotion_deposit_used");
    const rejected = await call(`/api/admin/promotions/bookings/${proposed.data.id}/decline`, { reason: "The deposit came back as a chargeback." }, { token: t.op2 });
    expect(rejected).toMatchObject({ code: 1, data: { status: "declined", decline_reason: "The deposit came back as a chargeback." } });
    expect(await stateOf(u.token, a)).toMatchObject({ state: "declined", decline_reason: "The deposit came back as a chargeback." });
    expect((await call(`/api/admin/promotions/bookings/${proposed.data.id}/confirm`, {}, { token: t.op2 })).data.error).toBe("state_conflict");
    expect(await bonusTransfers(u.id)).toEqual([]);
    // Declined, the deposit may back the other promotion's bonus.
    expect((await grant(t.op, { promotion_id: b, user_id: u.id, deposit_id: u.deposit_id })).data.status).toBe("pending");
    await call("/api/admin/promotion_four_eyes", { threshold: "500", reason: "back to the default" }, { token: t.op2 });
  });

  it("one operator cannot raise the threshold above its ceiling", async () => {
    const r = await call("/api/admin/promotion_four_eyes", { threshold: "501", reason: "looser" }, { token: t.op });
    expect(r).toMatchObject({ code: 0, data: { error: "four_eyes_ceiling", max_micro: 500 * USDT } });
    expect((await call("/api/admin/promotion_config", {}, { token: t.op })).data.four_eyes.threshold_micro).toBe(500 * USDT);
  });

  it("refuses deposits that do not qualify, each with its reason", async () => {
    const id = await openPromotion(t);
    const u = await newUser();
    await book(u.token, id);
    const small = await approvedDeposit(u.token, t.op, "49.99");
    const old = await approvedDeposit(u.token, t.op, "100");
    // Made before the period began (the period started yesterday, 00:00 UTC).
    await testEnv.DB.prepare("UPDATE deposits SET created_at_ms = ? WHERE id = ?").bind(Date.now() - 3 * 86_400_000, old).run();
    const reviewing = (await recharge(u.token, "100")).data.id as number;
    const other = await userWithDeposit(t.op, "100");
    const tries = { [small]: "promotion_deposit_below_minimum", [old]: "promotion_deposit_outside_period", [reviewing]: "promotion_deposit_not_approved", [other.deposit_id]: "promotion_deposit_not_yours", 99_999_999: "promotion_deposit_not_yours" };
    for (const [deposit_id, error] of Object.entries(tries)) {
      const r = await grant(t.op, { promotion_id: id, user_id: u.id, deposit_id });
      expect(r.data.error, `deposit ${deposit_id}`).toBe(error);
      expect(r.msg).not.toBe(`errors.${error}`);
    }
    expect(await bonusTransfers(u.id)).toEqual([]);
    // The panel shows the same verdicts, with the bonus only where it qualifies.
    const panel = (await call("/api/admin/promotion_panel", { promotion_id: id, user_id: u.id }, { token: t.op })).data;
    const verdict = Object.fromEntries((panel.deposits as any[]).map((d) => [d.id, [d.eligibility, d.bonus_micro]]));
    expect(verdict).toEqual({ [small]: ["deposit_below_minimum", 0], [old]: ["deposit_outside_period", 0], [reviewing]: ["deposit_not_approved", 0] });
    expect(panel.booking.status).toBe("booked");
  });

  it("one deposit backs one bonus, even across promotions", async () => {
    const a = await openPromotion(t);
    const b = await openPromotion(t);
    const u = await userWithDeposit(t.op, "100");
    await book(u.token, a);
    await book(u.token, b);
    expect((await grant(t.op, { promotion_id: a, user_id: u.id, deposit_id: u.deposit_id })).code).toBe(1);
    expect((await grant(t.op, { promotion_id: b, user_id: u.id, deposit_id: u.deposit_id })).data.error).toBe("promotion_deposit_used");
    const panel = (await call("/api/admin/promotion_panel", { promotion_id: b, user_id: u.id }, { token: t.op })).data;
    expect(panel.deposits[0]).toMatchObject({ id: u.deposit_id, eligibility: "ok", used: true, bonus_micro: 10 * USDT });
  });

  it("needs a booking and an open promotion", async () => {
    const id = await openPromotion(t);
    const u = await userWithDeposit(t.op, "100");
    expect((await grant(t.op, { promotion_id: id, user_id: u.id, deposit_id: u.deposit_id })).data.error).toBe("promotion_not_booked");
    await book(u.token, id);
    await call(`/api/admin/promotions/${id}/enabled`, { enabled: "0", reason: "paused" }, { token: t.op });
    expect((await grant(t.op, { promotion_id: id, user_id: u.id, deposit_id: u.deposit_id })).data.error).toBe("promotion_closed");
  });

  it("declines with a reason the user reads; a declined booking is never paid", async () => {
    const id = await openPromotion(t);
    const u = await userWithDeposit(t.op, "100");
    const booked = await book(u.token, id);
    const bookings = (await call(`/api/admin/promotions/${id}/bookings`, {}, { token: t.op })).data.items as any[];
    const mine = bookings.find((b) => b.user_id === u.id);
    expect(mine).toMatchObject({ status: "booked", account: u.account });
    expect((await call(`/api/admin/promotions/bookings/${mine.id}/decline`, {}, { token: t.op })).data.error).toBe("incomplete");
    const declined = await call(`/api/admin/promotions/bookings/${mine.id}/decline`, { reason: "The deposit was a transfer between your own accounts." }, { token: t.op });
    expect(declined).toMatchObject({ code: 1, data: { status: "declined" } });
    expect(await stateOf(u.token, id)).toMatchObject({ state: "declined", decline_reason: "The deposit was a transfer between your own accounts." });
    expect((await grant(t.op, { promotion_id: id, user_id: u.id, deposit_id: u.deposit_id })).data.error).toBe("state_conflict");
    expect(await bonusTransfers(u.id)).toEqual([]);
    expect(booked.data.state).toBe("booked");
  });

  it("users cannot grant, confirm, decline or read a panel", async () => {
    const id = await openPromotion(t);
    const u = await userWithDeposit(t.op, "100");
    await book(u.token, id);
    for (const path of ["/api/admin/promotions/grant", "/api/admin/promotions/bookings/1/confirm", "/api/admin/promotions/bookings/1/decline", "/api/admin/promotion_panel", "/api/admin/promotions", "/api/admin/promotion_four_eyes"]) {
      const r = await call(path, { promotion_id: id, user_id: u.id, deposit_id: u.deposit_id, reason: "x", threshold: "1" }, { token: u.token });
      expect(r.status, path).toBe(401);
    }
    expect(await bonusTransfers(u.id)).toEqual([]);
  });

  it("bad input gets a localized envelope error, never a 500", async () => {
    for (const body of [{}, { promotion_id: "x", user_id: 1, deposit_id: 1 }, { promotion_id: 1, user_id: -1, deposit_id: 1 }, { promotion_id: 1e30, user_id: 1, deposit_id: 1 }]) {
      const r = await grant(t.op, body);
      expect(r.status).toBeLessThan(500);
      expect(r.code).toBe(0);
    }
    expect((await call("/api/admin/promotions/bookings/abc/confirm", {}, { token: t.op })).status).toBe(404);
  });
});
