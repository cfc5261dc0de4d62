import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notifications, orders, self_exclusions } from "../../worker/db/schema";
import { setLimits as setLimitsAt } from "../../worker/domain/limits/limits";
import { periodEnd } from "../../worker/domain/limits/rules";
import { decide, writeSettlements } from "../../worker/domain/trades/settlement-writes";
import { placeOrder } from "../../worker/domain/trades/order-writes";
import { call, db, page, seed } from "./helpers";
import { bindWallet, operatorToken, recharge, rkey } from "./money/helpers";
import { market, user, USDT } from "./trades/market-helpers";

const HOUR = 3_600_000;
let PRODUCT = 0;

beforeAll(async () => {
  // The demo seed opens the deposit channel and the withdrawal rules the money checks need.
  await seed();
  PRODUCT = (await market()).id;
});

async function price() {
  return (await call("/api/index/product", { id: PRODUCT })).data.price as string;
}

async function order(token: string, amount: string, opts: { key?: string; lang?: string; quote_price?: string } = {}) {
  const body = { product_id: PRODUCT, direction: "up", amount, seconds: 60, quote_price: opts.quote_price ?? (await price()), client_order_id: opts.key ?? rkey("o") };
  return call("/api/order/addorder", body, { token, headers: opts.lang ? { lang: opts.lang } : {} });
}

const setLimits = (token: string, body: Record<string, string>) => call("/api/user/limits/set", body, { token });
const limitOf = async (token: string, kind: string) => (await call("/api/user/limits", {}, { token })).data.list.find((l: { kind: string }) => l.kind === kind);
const advanceClock = (advance_ms: number) => call("/api/test/clock", { advance_ms });
const serverNow = async () => (await advanceClock(0)).data.now_ms as number;

describe("limits are checked in the order's own batch", () => {
  it("twenty parallel orders against a daily stake limit place only what fits, and the first refusal notifies once", async () => {
    const u = await user(1000);
    const set = await setLimits(u.token, { daily_stake: "100" });
    expect(set.code, set.msg + JSON.stringify(set.data)).toBe(1);
    const answers = await Promise.all(Array.from({ length: 20 }, () => order(u.token, "15")));
    const placed = answers.filter((a) => a.code === 1);
    const refused = answers.filter((a) => a.code !== 1);
    expect(placed).toHaveLength(6);
    const next_midnight = periodEnd("day", Date.now());
    for (const r of refused) expect(r.data).toMatchObject({ error: "trading_limit_daily_stake", limit: "daily_stake", resets_at_ms: next_midnight });
    expect(refused[0].msg).toContain("daily stake limit");
    const [{ staked }] = await db.select({ staked: sql<number>`SUM(${orders.stake_micro})` }).from(orders).where(eq(orders.user_id, u.id));
    expect(staked).toBe(90 * USDT);
    const notes = await db.select().from(notifications).where(and(eq(notifications.user_id, u.id), eq(notifications.kind, "limit_reached")));
    expect(notes.map((n) => JSON.parse(n.params_json))).toEqual([{ limit: "daily_stake", resets_at_ms: next_midnight }]);
    // The refusal names the limit in the user's language.
    const th = await order(u.token, "15", { lang: "th" });
    expect(th.data.error).toBe("trading_limit_daily_stake");
    expect(th.msg).toContain("วงเงินลงทุนรายวัน");
  });

  it("a retried order that was placed answers as itself, not as over the limit", async () => {
    const u = await user(100);
    await setLimits(u.token, { daily_stake: "20" });
    // A retry sends the very same request: the same key and the quote it was shown then (the
    // price may have moved since; a different quote under the same key is another request).
    const retry = { key: rkey("retry"), quote_price: await price() };
    const first = await order(u.token, "20", retry);
    expect(first.code).toBe(1);
    const again = await order(u.token, "20", retry);
    expect(again.code).toBe(1);
    expect(again.data.id).toBe(first.data.id);
  });

  it("a loss limit counts what open orders could still lose", async () => {
    const u = await user(500);
    await setLimits(u.token, { daily_loss: "30" });
    expect((await order(u.token, "20")).code).toBe(1);
    expect((await order(u.token, "20")).data).toMatchObject({ error: "trading_limit_daily_loss", limit: "daily_loss" });
    expect((await order(u.token, "10")).code).toBe(1);
  });

  it("the open-orders limit resets when the first open order settles", async () => {
    const u = await user(500);
    await setLimits(u.token, { max_open_orders: "1" });
    const first = await order(u.token, "10");
    expect(first.code).toBe(1);
    const second = await order(u.token, "10");
    expect(second.data).toMatchObject({ error: "trading_limit_max_open_orders", resets_at_ms: first.data.order.delivery_at });
  });

  it("bad limit values get a field error, never a 500", async () => {
    const u = await user(0);
    for (const body of <Record<string, string>[]>[{ daily_stake: "-5" }, { daily_stake: "1.234" }, { max_open_orders: "0" }, { max_open_orders: "2.5" }, { weekly_loss: "abc" }]) {
      const r = await setLimits(u.token, body);
      expect(r.status, JSON.stringify(body)).toBe(200);
      expect(r.data.error, JSON.stringify(body)).toBe("invalid_field");
    }
    expect((await setLimits(u.token, {})).data.error).toBe("incomplete");
  });
});

describe("changing a limit", () => {
  it("lowering counts at once; raising and removing wait 24 hours on the server's clock", async () => {
    const u = await user(500);
    await setLimits(u.token, { daily_stake: "100" });
    await setLimits(u.token, { daily_stake: "50" });
    expect(await limitOf(u.token, "daily_stake")).toMatchObject({ value_micro: 50 * USDT, pending: null });
    expect((await order(u.token, "60")).data.error).toBe("trading_limit_daily_stake");

    const asked_at = await serverNow();
    await setLimits(u.token, { daily_stake: "500" });
    const waiting = await limitOf(u.token, "daily_stake");
    expect(waiting.value_micro).toBe(50 * USDT);
    expect(waiting.pending.value_micro).toBe(500 * USDT);
    expect(waiting.pending.effective_at_ms - asked_at).toBeGreaterThanOrEqual(24 * HOUR);
    expect(waiting.pending.effective_at_ms - asked_at).toBeLessThan(24 * HOUR + 60_000);
    expect((await order(u.token, "60")).data.error).toBe("trading_limit_daily_stake");

    await advanceClock(24 * HOUR - 120_000);
    expect((await limitOf(u.token, "daily_stake")).value_micro).toBe(50 * USDT);
    await advanceClock(180_000);
    expect(await limitOf(u.token, "daily_stake")).toMatchObject({ value_micro: 500 * USDT, pending: null });

    await setLimits(u.token, { daily_stake: "" });
    const removing = await limitOf(u.token, "daily_stake");
    expect(removing.value_micro).toBe(500 * USDT);
    expect(removing.pending).toMatchObject({ value: null, value_micro: null });
    // Tightening again drops the waiting removal.
    await setLimits(u.token, { daily_stake: "400" });
    expect(await limitOf(u.token, "daily_stake")).toMatchObject({ value_micro: 400 * USDT, pending: null });
  });
});

describe("cool-off and self-exclusion", () => {
  it("refuses orders and deposits, keeps withdrawals open, and can only grow", async () => {
    const u = await user(500);
    const wallet_id = await bindWallet(u.token);
    const exclude = (kind: string, days: number | string, password = "secret123") => call("/api/user/self_exclude", { kind, days, password }, { token: u.token });
    expect((await exclude("cool_off", 43)).data.error).toBe("cool_off_days");
    expect((await exclude("exclusion", 100)).data.error).toBe("exclusion_days");
    expect((await exclude("cool_off", 2, "wrong-pass1")).data.error).toBe("password_wrong");
    expect((await exclude("holiday", 2)).data.error).toBe("invalid_field");

    const started = await exclude("cool_off", 2);
    expect(started.code).toBe(1);
    const until_ms = started.data.until_ms as number;

    const refused = await order(u.token, "10");
    expect(refused.data).toMatchObject({ error: "self_excluded", until_ms });
    const deposit = await recharge(u.token, "50");
    expect(deposit.data).toMatchObject({ error: "self_excluded_deposit", until_ms });
    const withdrawal = await call("/api/user/withdraw", { amount: "20", wallet_id, password: "secret123" }, { token: u.token });
    expect(withdrawal.code).toBe(1);

    // Asking for a shorter one changes nothing; a longer one extends it.
    expect((await exclude("cool_off", 1)).data.until_ms).toBe(until_ms);
    const longer = await exclude("exclusion", 200);
    expect(longer.data.kind).toBe("exclusion");
    expect(longer.data.until_ms).toBeGreaterThan(until_ms);

    // Not even a direct write to the database ends it early.
    await expect(db.update(self_exclusions).set({ until_ms: Date.now() }).where(eq(self_exclusions.user_id, u.id))).rejects.toThrow();
    await expect(db.delete(self_exclusions).where(eq(self_exclusions.user_id, u.id))).rejects.toThrow();
    expect((await call("/api/user/limits", {}, { token: u.token })).data.exclusion).toMatchObject({ kind: "exclusion", until_ms: longer.data.until_ms });
  });
});

describe("withdrawal allow-list", () => {
  it("a new address receives withdrawals only after the waiting period; removing it counts at once", async () => {
    const u = await user(500);
    const bound_at = await serverNow();
    const added = await call("/api/user/add_wallet", { chain: "TRC20", address: "TCvAsN4KpsZMAYTpHeEYgt1YuoBPF4HT9S", password: "secret123" }, { token: u.token });
    expect(added.code).toBe(1);
    const opens_at = added.data.wallet.opens_at as number;
    expect(opens_at - bound_at).toBeGreaterThanOrEqual(24 * HOUR);
    expect(opens_at - bound_at).toBeLessThan(24 * HOUR + 60_000);

    const withdraw = () => call("/api/user/withdraw", { amount: "20", wallet_id: added.data.id, password: "secret123" }, { token: u.token, headers: { "idempotency-key": rkey("wd") } });
    const early = await withdraw();
    expect(early.data).toMatchObject({ error: "destination_waiting", opens_at });
    expect(early.msg).toContain("opens for withdrawals");

    await advanceClock(opens_at - (await serverNow()) + 1_000);
    expect((await withdraw()).code).toBe(1);

    expect((await call("/api/user/del_wallet", { id: added.data.id }, { token: u.token })).code).toBe(1);
    expect((await withdraw()).data.error).toBe("target_unknown");
  });
});

/** RFC 4180 read back: quoted fields with doubled quotes, CRLF records. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") row.push(field), (field = "");
    else if (ch === "\r" && text[i + 1] === "\n") row.push(field), rows.push(row), (row = []), (field = ""), i++;
    else field += ch;
  }
  return rows;
}

const today = () => new Date(Date.now()).toISOString().slice(0, 10);
const getCsv = (path: string, token?: string) => page(path, { headers: token ? { token } : {} });

describe("CSV exports", () => {
  it("the statement downloads row for row as the statement API lists it", async () => {
    const u = await user(300);
    for (const amount of ["10", "12.5"]) expect((await order(u.token, amount)).code).toBe(1);
    const res = await getCsv(`/api/user/statement.csv?from=${today()}&to=${today()}`, u.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="statement-${today()}-${today()}.csv"`);
    const text = await res.text();
    expect(text.endsWith("\r\n")).toBe(true);
    expect(text.replaceAll("\r\n", "")).not.toMatch(/\n/);
    const [header, ...rows] = parseCsv(text);
    expect(header).toEqual(["time_utc", "transfer_id", "account", "code", "amount_usdt", "balance_after_usdt", "ref_type", "ref_id", "counterparty"]);
    const api = (await call("/api/user/records", { row: 100 }, { token: u.token })).data.items;
    expect(rows).toEqual(api.map((l: any) => [new Date(l.created_at).toISOString(), String(l.id), l.account, l.code, l.amount, l.balance_after, l.ref_type, l.ref_id, l.counterparty]));
    // The funding line, then per order the stake (two lines: out of available, into locked) and the fee.
    expect(rows.length).toBe(7);
  });

  it("the order history downloads with every order of the range, open ones included", async () => {
    const u = await user(300);
    const ids: number[] = [];
    for (const amount of ["10", "11"]) ids.push((await order(u.token, amount)).data.id);
    const res = await getCsv(`/api/user/orders.csv?from=${today()}&to=${today()}`, u.token);
    const [header, ...rows] = parseCsv(await res.text());
    expect(header.slice(0, 6)).toEqual(["order_id", "placed_at_utc", "symbol", "direction", "seconds", "stake_usdt"]);
    const hold = (await call("/api/order/hold", {}, { token: u.token })).data.items;
    expect(rows.map((r) => Number(r[0]))).toEqual([...ids].reverse());
    expect(rows.map((r) => r[5])).toEqual(hold.map((o: any) => o.amount));
    expect(rows.every((r) => r[9] === "open" && r[13] === "")).toBe(true);
  });

  it("refuses a bad range or no session with the envelope", async () => {
    const u = await user(0);
    const bad = await getCsv(`/api/user/statement.csv?from=2026-02-30&to=${today()}`, u.token);
    expect(await bad.json()).toMatchObject({ code: 0, data: { error: "invalid_field", field: "from" } });
    const reversed = await getCsv(`/api/user/orders.csv?from=2026-05-02&to=2026-05-01`, u.token);
    expect(await reversed.json()).toMatchObject({ code: 0, data: { error: "invalid_field", field: "to" } });
    const long = await getCsv(`/api/user/statement.csv?from=2024-01-01&to=2025-12-31`, u.token);
    expect(await long.json()).toMatchObject({ code: 0, data: { error: "export_range_too_long" } });
    expect((await getCsv(`/api/user/statement.csv?from=${today()}&to=${today()}`)).status).toBe(401);
  });
});

describe("the allow-list's waiting period in money settings", () => {
  it("operators can lengthen it, never shorten it below 24 h; a binding keeps the wait it was bound with", async () => {
    const op = await operatorToken();
    const set = (hours: number | string) => call("/api/admin/binding_wait", { hours, reason: "test" }, { token: op });
    expect((await set(12)).data).toMatchObject({ error: "binding_wait_range", min_hours: 24 });
    expect((await set(721)).data.error).toBe("binding_wait_range");
    const u = await user(0);
    const before = await call("/api/user/add_wallet", { chain: "TRC20", address: "TCvAsN4KpsZMAYTpHeEYgt1YuoBPF4HT9S", password: "secret123" }, { token: u.token });
    expect((await set(48)).code).toBe(1);
    expect((await call("/api/admin/money_config", {}, { token: op })).data.binding_wait.hours).toBe(48);
    const at = await serverNow();
    const after = await call("/api/user/add_bank", { name: "Ann Lee", bank: "Demo Bank", card_number: "6222021234567894", password: "secret123" }, { token: u.token });
    expect(after.code).toBe(1);
    const list = (await call("/api/user/bank_list", {}, { token: u.token })).data;
    expect(list[0].opens_at - at).toBeGreaterThanOrEqual(48 * HOUR);
    expect(list[0].opens_at - at).toBeLessThan(48 * HOUR + 60_000);
    // The address bound before the change keeps its 24 h.
    const wallets = (await call("/api/user/wallet_list", {}, { token: u.token })).data;
    expect(wallets[0].opens_at).toBe(before.data.wallet.opens_at);
    expect((await set(24)).code).toBe(1);
  });
});

describe("the trigger's periods, in SQLite itself", () => {
  // Orders written by the domain at chosen times (as the hub would at those moments).
  const P = 100 * 1e8;
  async function placeAt(user_id: number, stake_usdt: number, at_ms: number) {
    const input = { user_id, product_id: PRODUCT, direction: "up" as const, stake_micro: stake_usdt * USDT, seconds: 60, quote_price_e8: P, request_key: rkey("at") };
    return placeOrder(db, input, { ts_ms: at_ms, price_e8: P }, at_ms);
  }

  it("a week starts on Monday 00:00 UTC and a month on the 1st", async () => {
    const u = await user(1000);
    await setLimitsAt(db, u.id, { weekly_stake: 100 * USDT, monthly_stake: 150 * USDT }, Date.now());
    const sunday = Date.UTC(2031, 5, 29, 23, 59, 59, 999); // Sunday 29 June 2031, last millisecond
    expect((await placeAt(u.id, 100, sunday)).status).toBe("ok");
    expect(await placeAt(u.id, 1, sunday)).toEqual({ status: "limit_reached", limit: "weekly_stake" });
    // Monday 30 June: a new week, the same month (100 of 150 used).
    expect(await placeAt(u.id, 60, sunday + 1)).toEqual({ status: "limit_reached", limit: "monthly_stake" });
    expect((await placeAt(u.id, 50, sunday + 1)).status).toBe("ok");
    // Tuesday 1 July: a new month, still the week of the 50.
    const july = Date.UTC(2031, 6, 1);
    expect((await placeAt(u.id, 50, july)).status).toBe("ok");
    expect(await placeAt(u.id, 1, july)).toEqual({ status: "limit_reached", limit: "weekly_stake" });
  });

  it("a loss limit counts the stakes lost in the day net of payouts, plus what open orders could lose", async () => {
    const u = await user(1000);
    const day = Date.UTC(2032, 2, 10, 8);
    const lost = await placeAt(u.id, 20, day);
    if (lost.status !== "ok") throw new Error(lost.status);
    const ticks = [{ ts_ms: day + 1, price_e8: P }, { ts_ms: lost.order.delivery_at_ms, price_e8: P - 1e8 }];
    await writeSettlements(db, [decide(lost.order, ticks)], lost.order.delivery_at_ms + 1);
    await setLimitsAt(db, u.id, { daily_loss: 30 * USDT }, Date.now());
    const later = lost.order.delivery_at_ms + 1_000;
    expect(await placeAt(u.id, 15, later)).toEqual({ status: "limit_reached", limit: "daily_loss" });
    expect((await placeAt(u.id, 10, later)).status).toBe("ok");
    // The next day the settled loss no longer counts; the 10 still open does (it can still be lost).
    expect(await placeAt(u.id, 21, Date.UTC(2032, 2, 11))).toEqual({ status: "limit_reached", limit: "daily_loss" });
    expect((await placeAt(u.id, 20, Date.UTC(2032, 2, 11))).status).toBe("ok");
  });
});
