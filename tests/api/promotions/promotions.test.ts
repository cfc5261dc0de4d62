import { beforeAll, describe, expect, it } from "vitest";
import { call, newUser, testEnv } from "../helpers";
import { book, form, isoDay, openPromotion, operators, stateOf, USDT, userWithDeposit } from "./helpers";

let t: { op: string; op2: string };

beforeAll(async () => {
  t = await operators();
});

const list = async () => (await call("/api/admin/promotions", {}, { token: t.op })).data.items as any[];

describe("promotions in the console", () => {
  it("a new promotion stays closed until a different operator opens it", async () => {
    const saved = await call("/api/admin/promotions/save", form(), { token: t.op });
    expect(saved.code).toBe(1);
    const p = (await list()).find((x) => x.id === saved.data.id);
    expect(p).toMatchObject({ enabled: false, percent: "10", percent_bp: 1000, cap_micro: 50 * USDT, min_deposit_micro: 50 * USDT, starts_on: isoDay(-1), ends_on: isoDay(30), frozen: false });
    expect(p.texts.ja.title).toBe("入金ボーナス");
    const self = await call(`/api/admin/promotions/${saved.data.id}/enabled`, { enabled: "1", reason: "launch" }, { token: t.op });
    expect(self.data.error).toBe("promotion_open_four_eyes");
    // And the CHECK says the same in SQL.
    await expect(testEnv.DB.prepare("UPDATE promotions SET enabled = 1, opened_by = terms_by WHERE id = ?").bind(saved.data.id).run()).rejects.toThrow(/promotions_four_eyes/);
    expect((await call(`/api/admin/promotions/${saved.data.id}/enabled`, { enabled: "1", reason: "checked" }, { token: t.op2 })).code).toBe(1);
    expect((await list()).find((x) => x.id === saved.data.id).enabled).toBe(true);
  });

  it("changing terms closes it again; once a bonus is paid the money terms are frozen (also in the database), and every change is audited", async () => {
    const id = await openPromotion(t);
    const edit = await call("/api/admin/promotions/save", form({ id, percent: "12" }), { token: t.op });
    expect(edit.code).toBe(1);
    expect((await list()).find((x) => x.id === id)).toMatchObject({ enabled: false, percent_bp: 1200 });
    await call(`/api/admin/promotions/${id}/enabled`, { enabled: "1", reason: "ok" }, { token: t.op2 });
    const u = await userWithDeposit(t.op, "100");
    await book(u.token, id);
    expect((await call("/api/admin/promotions/grant", { promotion_id: id, user_id: u.id, deposit_id: u.deposit_id }, { token: t.op })).code).toBe(1);
    expect((await list()).find((x) => x.id === id)).toMatchObject({ frozen: true, counts: { granted: 1 } });
    for (const change of [{ percent: "20" }, { cap: "60" }, { min_deposit: "10" }]) {
      const r = await call("/api/admin/promotions/save", form({ id, percent: "12", ...change }), { token: t.op2 });
      expect(r.data.error).toBe("promotion_terms_frozen");
    }
    await expect(testEnv.DB.prepare("UPDATE promotions SET cap_micro = cap_micro + 1 WHERE id = ?").bind(id).run()).rejects.toThrow(/promotion_terms_frozen/);
    // Words may still change.
    expect((await call("/api/admin/promotions/save", form({ id, percent: "12", title_en: "Recharge bonus (renamed)" }), { token: t.op2 })).code).toBe(1);
    const audit = (await call("/api/admin/audit", { action: "promotion" }, { token: t.op })).data.items as any[];
    const mine = audit.filter((a) => a.target === `promotion:${id}`).map((a) => a.action);
    expect(mine).toEqual(expect.arrayContaining(["promotion.create", "promotion.update"]));
    // The terms change is recorded with what was there before.
    const changes = audit.filter((a) => a.target === `promotion:${id}` && a.action === "promotion.update").map((a) => JSON.parse(a.data_json));
    expect(changes.some((d) => d.before.percent_bp === 1000 && d.after.percent_bp === 1200)).toBe(true);
  });

  it("refuses bad terms with a localized message", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ percent: "0" }, "promotion_percent_invalid"],
      [{ percent: "100.01" }, "promotion_percent_invalid"],
      [{ percent: "abc" }, "promotion_percent_invalid"],
      [{ cap: "-1" }, "amount_invalid"],
      [{ starts_on: "2026-02-30" }, "promotion_date_invalid"],
      [{ starts_on: "0099-01-01" }, "promotion_date_invalid"],
      [{ starts_on: isoDay(3), ends_on: isoDay(2) }, "promotion_period_invalid"],
      [{ title_en: "" }, "incomplete"],
      [{ title_en: "x".repeat(81) }, "invalid_field"],
      [{ reason: "" }, "incomplete"],
      [{ kind: "lottery" }, "invalid_field"],
    ];
    for (const [over, error] of cases) {
      const r = await call("/api/admin/promotions/save", form(over), { token: t.op, headers: { lang: "de" } });
      expect(r.data.error, JSON.stringify(over)).toBe(error);
      expect(r.status).toBeLessThan(500);
    }
  });
});

describe("promotions for users", () => {
  it("lists open promotions in the user's language with their state, and books idempotently", async () => {
    const id = await openPromotion(t);
    const u = await newUser();
    const ja = (await call("/api/index/activity", { lang: "jpn" }, { token: u.token })).data.items.find((p: any) => p.id === id);
    expect(ja).toMatchObject({ title: "入金ボーナス", lang: "ja", state: "not_booked", bookable: true, percent: "10", cap: "50.00", min_deposit: "50.00" });
    // A language without its own words falls back to English.
    const de = await call("/api/index/activity", { lang: "dy" }, { token: u.token });
    expect(de.data.items.find((p: any) => p.id === id)).toMatchObject({ title: "Recharge bonus", lang: "en" });
    const first = await book(u.token, id);
    expect(first).toMatchObject({ code: 1, data: { state: "booked" } });
    const again = await book(u.token, id);
    expect(again.data.booked_at).toBe(first.data.booked_at);
    const rows = await testEnv.DB.prepare("SELECT count(*) AS n FROM promotion_bookings WHERE promotion_id = ? AND user_id = ?").bind(id, u.id).first<{ n: number }>();
    expect(rows!.n).toBe(1);
  });

  it("a closed or out-of-period promotion refuses a booking in the user's language", async () => {
    const u = await newUser();
    const closed = (await call("/api/admin/promotions/save", form(), { token: t.op })).data.id;
    const r = await call("/api/index/activity_book", { id: closed, lang: "jpn" }, { token: u.token });
    expect(r).toMatchObject({ code: 0, data: { error: "promotion_closed" } });
    expect(r.msg).toBe("このキャンペーンは終了（クローズ）しています。");
    const later = await openPromotion(t, { starts_on: isoDay(2), ends_on: isoDay(9) });
    expect((await book(u.token, later)).data.error).toBe("promotion_not_started");
    expect((await book(u.token, 99_999_999)).status).toBe(404);
    expect((await call("/api/index/activity_book", { id: "x" }, { token: u.token })).data.error).toBe("invalid_field");
    // Closed promotions are not listed to someone who never booked them.
    const items = (await call("/api/index/activity", {}, { token: u.token })).data.items as any[];
    expect(items.map((p) => p.id)).not.toContain(closed);
    expect(items.find((p) => p.id === later)).toMatchObject({ bookable: false });
  });

  it("a booking made while open stays bookable-idempotent and visible after the promotion closes", async () => {
    const id = await openPromotion(t);
    const u = await newUser();
    await book(u.token, id);
    await call(`/api/admin/promotions/${id}/enabled`, { enabled: "0", reason: "ended early" }, { token: t.op });
    expect((await book(u.token, id)).code).toBe(1);
    expect(await stateOf(u.token, id)).toMatchObject({ state: "booked", bookable: false });
  });

  it("a user sees only their own state and needs a session", async () => {
    const id = await openPromotion(t);
    const a = await userWithDeposit(t.op, "100");
    const b = await newUser();
    await book(a.token, id);
    await call("/api/admin/promotions/grant", { promotion_id: id, user_id: a.id, deposit_id: a.deposit_id }, { token: t.op });
    expect(await stateOf(a.token, id)).toMatchObject({ state: "granted", bonus_micro: 10 * USDT });
    // Another user's id in the request changes nothing: the state is always the caller's.
    expect((await call("/api/index/activity", { user_id: a.id }, { token: b.token })).data.items.find((p: any) => p.id === id)).toMatchObject({ state: "not_booked", bonus: null });
    expect((await call("/api/index/activity", {})).status).toBe(401);
    expect((await call("/api/index/activity_book", { id })).status).toBe(401);
  });
});
