import { and, eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { order_ticks, orders, transitions } from "../../../worker/db/schema";
import { checkLedger } from "../../../worker/domain/ledger/check";
import { checkOrder } from "../../../worker/domain/trades/order-check";
import { decide, writeSettlements } from "../../../worker/domain/trades/settlement-writes";
import { getProduct } from "../../../worker/domain/trades/products";
import { writeOrders } from "../../../worker/domain/trades/order-writes";
import { orderTicks, type Order } from "../../../worker/domain/trades/orders";
import { hubFor } from "../../../worker/quotes";
import { call, db, testEnv } from "../helpers";
import { rkey } from "../money/helpers";
import { balance, entered, market, openTerms, operator, user, USDT } from "./market-helpers";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts the test database's batches (their sizes) and its other statements until `restore`. */
function countCalls() {
  const batches: number[] = [];
  let prepared = 0;
  const client = db.$client as { batch: (s: unknown[]) => Promise<unknown>; prepare: (q: string) => unknown };
  const realBatch = client.batch.bind(client);
  const realPrepare = client.prepare.bind(client);
  client.batch = (s: unknown[]) => (batches.push(s.length), (prepared -= s.length), realBatch(s));
  client.prepare = (q: string) => (prepared++, realPrepare(q));
  return { batches, reads: () => prepared, restore: () => ((client.batch = realBatch), (client.prepare = realPrepare)) };
}
let FAST_ID = 0;

beforeAll(async () => {
  // A market with a 2-second delivery, so settlement can be watched inside a test.
  FAST_ID = (
    await market({ symbol: "TST/USDT", name: "Test coin", feed_symbol: "TSTUSDT", quote_tolerance_bp: 50, sort: 9, durations: [{ seconds: 2, profit_rate_bp: 8500, min_stake_micro: 10 * USDT, max_stake_micro: 1000 * USDT }] })
  ).id;
});

async function currentPrice(product_id: number) {
  return (await call("/api/index/product", { id: product_id })).data.price as string;
}

describe("markets", () => {
  it("product_list carries live prices, durations and rates", async () => {
    const r = await call("/api/index/product_list");
    expect(r.code).toBe(1);
    const tst = r.data.find((p: { symbol: string }) => p.symbol === "TST/USDT");
    expect(tst).toMatchObject({ name: "Test coin", fee_rate: 0.01, simulated: true });
    expect(Number(tst.price)).toBeGreaterThan(0);
    expect(tst.durations[0]).toMatchObject({ seconds: 2, profit_rate: 0.85, min_amount: "10.00", max_amount: "1000.00" });
  });

  it("candles come back for every interval, oldest first", async () => {
    const btc = { id: FAST_ID };
    for (const interval of ["1m", "5m", "15m", "1h"]) {
      const r = await call("/api/index/candles", { id: btc.id, interval, limit: 20 });
      expect(r.code, interval).toBe(1);
      expect(r.data.length).toBeGreaterThan(0);
      const ts = r.data.map((k: { t: number }) => k.t);
      expect([...ts].sort((a, b) => a - b)).toEqual(ts);
    }
    expect((await call("/api/index/candles", { id: btc.id, interval: "2m" })).code).toBe(0);
  });
});

describe("placing orders", () => {
  it("moves stake to locked_trade and the fee to the platform, once per client order id", async () => {
    const u = await user(500);
    const price = await currentPrice(FAST_ID);
    const key = rkey("ord");
    const body = { product_id: FAST_ID, direction: "up", amount: "100", seconds: 2, quote_price: price, client_order_id: key };
    const [a, b] = await Promise.all([call("/api/order/addorder", body, { token: u.token }), call("/api/order/addorder", body, { token: u.token })]);
    expect(a.code).toBe(1);
    expect(b.data.id).toBe(a.data.id);
    expect(a.data.order).toMatchObject({ status: "open", amount: "100.00", fee: "1.00", direction: "up" });
    expect(await balance(u.token)).toEqual({ available: 399 * USDT, locked: 100 * USDT });
    const conflict = await call("/api/order/addorder", { ...body, amount: "101" }, { token: u.token });
    expect(conflict.data.error).toBe("idempotency_conflict");
  });

  it("refuses when the price moved beyond the tolerance, with the new price", async () => {
    const u = await user(100);
    const price = Number(await currentPrice(FAST_ID));
    const r = await call("/api/order/addorder", { product_id: FAST_ID, direction: "up", amount: "10", seconds: 2, quote_price: (price * 1.02).toFixed(2) }, { token: u.token });
    expect(r.data.error).toBe("price_moved");
    expect(r.msg).toContain("moved to");
    expect(await balance(u.token)).toEqual({ available: 100 * USDT, locked: 0 });
  });

  it("refuses bad stakes, durations, directions and insufficient balance cleanly", async () => {
    const u = await user(50);
    const price = await currentPrice(FAST_ID);
    const base = { product_id: FAST_ID, direction: "up", seconds: 2, quote_price: price };
    expect((await call("/api/order/addorder", { ...base, amount: "5" }, { token: u.token })).data.error).toBe("stake_out_of_range");
    expect((await call("/api/order/addorder", { ...base, amount: "20", seconds: 45 }, { token: u.token })).data.error).toBe("duration_unknown");
    expect((await call("/api/order/addorder", { ...base, amount: "20", direction: "sideways" }, { token: u.token })).data.error).toBe("direction_invalid");
    expect((await call("/api/order/addorder", { ...base, amount: "50" }, { token: u.token })).data.error).toBe("insufficient_funds");
    expect(await balance(u.token)).toEqual({ available: 50 * USDT, locked: 0 });
  });

  it("orders arriving together are written together, each with its own answer", async () => {
    const send = async () => {
      const rich: Awaited<ReturnType<typeof user>>[] = [];
      for (let i = 0; i < 5; i++) rich.push(await user(100));
      const poor = await user(20);
      const price = await currentPrice(FAST_ID);
      const body = (key: string) => ({ product_id: FAST_ID, direction: "down", amount: "40", seconds: 2, quote_price: price, client_order_id: key });
      const keys = rich.flatMap((u, i) => [`grp-${i}-a-${rkey()}`, `grp-${i}-b-${rkey()}`]);
      const answers = await Promise.all([
        ...keys.map((k, i) => call("/api/order/addorder", body(k), { token: rich[i >> 1].token })),
        call("/api/order/addorder", body(rkey("poor")), { token: poor.token }),
        call("/api/order/addorder", body(keys[0]), { token: rich[0].token }), // a retry racing its original
      ]);
      return { rich, poor, keys, answers };
    };
    // On a loaded machine the market's last tick can age past what an order allows (price_stale)
    // or move past the tolerance while the group is on its way: then the group is sent again, by
    // new users, at a fresh price (what the first try wrote stays with its own users).
    const priceRefusal = (a: { data: { error?: string } }) => a.data?.error === "price_stale" || a.data?.error === "price_moved";
    let sent = await send();
    for (let attempt = 1; attempt < 3 && sent.answers.some(priceRefusal); attempt++) sent = await send();
    const { rich, poor, keys, answers } = sent;
    const ids = answers.slice(0, keys.length).map((a) => a.data.id);
    expect(answers.slice(0, keys.length).map((a) => (a.code === 1 ? "ok" : a.data.error))).toEqual(keys.map(() => "ok"));
    expect(new Set(ids).size).toBe(keys.length);
    expect(answers[keys.length].data.error).toBe("insufficient_funds");
    expect(answers[keys.length + 1].data.id).toBe(ids[0]);
    for (const u of rich) expect(await balance(u.token)).toEqual({ available: 100 * USDT - 2 * 40.4 * USDT, locked: 80 * USDT });
    expect(await balance(poor.token)).toEqual({ available: 20 * USDT, locked: 0 });
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("a group is one batch of three set statements; a refused order is found by one read and written alone, the others in set batches", async () => {
    const a = await user(100);
    const b = await user(20);
    const product = (await getProduct(db, FAST_ID))!;
    const latest = { ts_ms: Date.now(), price_e8: 100 * 1e8 };
    const input = (user_id: number, stake: number) => ({ user_id, product_id: FAST_ID, direction: "up" as const, stake_micro: stake * USDT, seconds: 2, quote_price_e8: latest.price_e8, request_key: `client:${rkey("w")}` });
    const checked = (user_id: number, stake: number) => {
      const c = checkOrder(product, input(user_id, stake), latest, Date.now());
      if (c.status !== "ok") throw new Error(c.status);
      return c.order;
    };
    const { batches, reads, restore } = countCalls();
    try {
      const good = await writeOrders(db, [checked(a.id, 10), checked(a.id, 10), checked(b.id, 10)]);
      expect(good.map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
      expect(batches).toEqual([3]); // orders, transfer records, accounts: whatever the group's size
      expect(reads()).toBe(0);
      batches.length = 0;
      const mixed = await writeOrders(db, [checked(a.id, 10), checked(b.id, 10), checked(a.id, 10)]);
      expect(mixed.map((r) => r.status)).toEqual(["ok", "insufficient_funds", "ok"]);
      // The refused group, one read, then in the group's order: a's first, b's alone (order +
      // 2 transfers x 2), a's second.
      expect(batches).toEqual([3, 3, 5, 3]);
      expect(reads()).toBe(1);
    } finally {
      restore();
    }
    expect(await balance(a.token)).toEqual({ available: 100 * USDT - 4 * 10.1 * USDT, locked: 40 * USDT });
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("a large group with one refused order costs one read and three batches more, not one write per order", async () => {
    const a = await user(1000);
    const b = await user(5);
    const product = (await getProduct(db, FAST_ID))!;
    const latest = { ts_ms: Date.now(), price_e8: 100 * 1e8 };
    const checked = (user_id: number) => {
      const c = checkOrder(product, { user_id, product_id: FAST_ID, direction: "up", stake_micro: 10 * USDT, seconds: 2, quote_price_e8: latest.price_e8, request_key: `client:${rkey("h")}` }, latest, Date.now());
      if (c.status !== "ok") throw new Error(c.status);
      return c.order;
    };
    const items = Array.from({ length: 24 }, (_, i) => checked(i === 9 ? b.id : a.id));
    const { batches, reads, restore } = countCalls();
    try {
      const results = await writeOrders(db, items);
      expect(results.map((r, i) => (i === 9 ? r.status === "insufficient_funds" : r.status === "ok")).every(Boolean)).toBe(true);
    } finally {
      restore();
    }
    // The refused group, one read, the 9 before the refused one, it alone, the 14 after: 5 round trips.
    expect(batches).toEqual([3, 3, 5, 3]);
    expect(reads()).toBe(1);
    expect(await balance(a.token)).toEqual({ available: 1000 * USDT - 23 * 10.1 * USDT, locked: 230 * USDT });
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("the confirmation quote shows fee, income, guarantee and the break-even win rate", async () => {
    const u = await user(10);
    const r = await call("/api/order/quote", { product_id: FAST_ID, amount: "100", seconds: 2 }, { token: u.token });
    expect(r.data).toEqual({ amount: "100.00", fee: "1.00", expected_income: "85.00", guarantee: "100.00", break_even_win_rate: 54.6 });
  });

  it("the expected income is the settlement's own winnings, exact for large stakes", async () => {
    const u = await user(10);
    const r = await call("/api/order/quote", { product_id: FAST_ID, amount: "555555555.55", seconds: 2 }, { token: u.token });
    // stake × 8,500 bp in floats ends in ...217.499; the BigInt rule gives ...217.5 exactly.
    expect(r.data.expected_income).toBe("472222222.2175");
  });
});

describe("settlement", () => {
  it("settles from the feed at delivery, pays per the rules, and shows the ticks it used", async () => {
    // A 2-second order on a machine busy enough to skip the feed's beats between entry and delivery
    // is voided (no tick to settle on, stake and fee returned): the rule, not what this test is
    // about. Such a pair is checked to be exactly that, and the pair is placed again, three times at most.
    const attempt = async () => {
      const u = await user(1000);
      const price = await currentPrice(FAST_ID);
      const placed = await Promise.all(
        ["up", "down"].map((direction) => call("/api/order/addorder", { product_id: FAST_ID, direction, amount: "100", seconds: 2, quote_price: price, client_order_id: rkey(direction) }, { token: u.token })),
      );
      expect(placed.every((p) => p.code === 1)).toBe(true);
      const hold = await call("/api/order/hold", {}, { token: u.token });
      expect(hold.data.items).toHaveLength(2);
      // Each entry is the first tick after acceptance, stored at the hub's next beat.
      for (const p of placed) await entered(p.data.id);
      await sleep(3500);
      const product = (await getProduct(db, FAST_ID))!;
      await (await hubFor(testEnv, product)).settleDue();
      const infos = await Promise.all(placed.map((p) => call("/api/order/orderinfo", { id: p.data.id }, { token: u.token })));
      return { u, placed, infos };
    };
    let round = await attempt();
    for (let again = 0; again < 2 && round.infos.some((i) => i.data.status === "void"); again++) {
      for (const info of round.infos.filter((i) => i.data.status === "void")) {
        const [row] = await db.select().from(orders).where(eq(orders.id, info.data.id));
        expect(row.void_reason).toBe("no_tick");
      }
      round = await attempt();
    }
    const { u, infos } = round;
    for (const info of infos) {
      expect(["won", "lost", "tie"]).toContain(info.data.status);
      expect(info.data.settlement_price).not.toBeNull();
      expect(info.data.settlement_ts).toBeLessThanOrEqual(info.data.delivery_at);
      const used = info.data.ticks.filter((t: { used: boolean }) => t.used);
      expect(used.map((t: { role: string }) => t.role)).toEqual(["entry", "settlement"]);
      expect(used[0].price).toBe(info.data.entry_price);
      expect(used[1].price).toBe(info.data.settlement_price);
      // The rule, checked from the ticks the order shows.
      const up = Number(info.data.settlement_price) > Number(info.data.entry_price);
      const same = info.data.settlement_price === info.data.entry_price;
      const expected = same ? "tie" : (info.data.direction === "up") === up ? "won" : "lost";
      expect(info.data.status).toBe(expected);
    }
    // One up and one down on the same prices: unless a tie, exactly one won.
    const statuses = infos.map((i) => i.data.status).sort();
    expect(statuses.join()).toMatch(/^(lost,won|tie,tie)$/);
    const b = await balance(u.token);
    expect(b.locked).toBe(0);
    // Both paid 100 + 1 fee; a tie returns both stakes; otherwise the winner gets 100 + 85.
    const expectedAvailable = statuses[0] === "tie" ? 998 * USDT : (1000 - 202 + 185) * USDT;
    expect(b.available).toBe(expectedAvailable);
    expect((await call("/api/order/orderlist", {}, { token: u.token })).data.items).toHaveLength(2);
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("running settlement twice (or concurrently) settles each order once", async () => {
    const u = await user(300);
    const price = await currentPrice(FAST_ID);
    const r = await call("/api/order/addorder", { product_id: FAST_ID, direction: "up", amount: "100", seconds: 2, quote_price: price }, { token: u.token });
    await sleep(3500);
    const hub = await hubFor(testEnv, (await getProduct(db, FAST_ID))!);
    const orderRow = async () => (await db.select().from(orders).where(eq(orders.id, r.data.id)))[0];
    // Three settlements at once, again until the order is settled: on a busy machine the tick
    // after delivery (or the entry's) may not be there yet, and then nothing is written.
    await expect
      .poll(
        async () => {
          await Promise.all([hub.settleDue(), hub.settleDue(), hub.settleDue()]);
          return (await orderRow()).status;
        },
        { timeout: 15_000, interval: 500 },
      )
      .not.toBe("open");
    const order = await orderRow();
    // Writing the same settlement again is refused by the transition guard, money unmoved.
    const again = await writeSettlements(db, [decide(order, [])], Date.now());
    expect(again).toEqual({ settled: 0, already: 1 });
    expect((await checkLedger(db)).ok).toBe(true);
    const b = await balance(u.token);
    expect(b.locked).toBe(0);
  });

  it("a chunk of settlements is one batch of set-based statements; a replayed chunk falls back and moves nothing", async () => {
    const u = await user(100);
    const product = (await getProduct(db, FAST_ID))!;
    const entry = { ts_ms: Date.now() - 10_000, price_e8: 100 * 1e8 };
    const placed: Order[] = [];
    for (const direction of ["up", "down", "up"] as const) {
      const c = checkOrder(product, { user_id: u.id, product_id: FAST_ID, direction, stake_micro: 10 * USDT, seconds: 2, quote_price_e8: entry.price_e8, request_key: `client:${rkey("chunk")}` }, entry, entry.ts_ms);
      if (c.status !== "ok") throw new Error(c.status);
      const [r] = await writeOrders(db, [c.order]);
      if (r.status !== "ok") throw new Error(r.status);
      placed.push(r.order);
    }
    // The price rose: the two "up" orders win, the "down" order loses. Their entry is the first
    // tick after acceptance (101), never the one at it (100).
    const ticks = [entry, { ts_ms: entry.ts_ms + 1000, price_e8: 101 * 1e8 }, { ts_ms: entry.ts_ms + 2000, price_e8: 102 * 1e8 }, { ts_ms: entry.ts_ms + 3000, price_e8: 103 * 1e8 }];
    const decided = placed.map((o) => decide(o, ticks));
    const client = db.$client as { batch: (s: unknown[]) => Promise<unknown> };
    const realBatch = client.batch.bind(client);
    const sizes: number[] = [];
    client.batch = (s: unknown[]) => (sizes.push(s.length), realBatch(s));
    try {
      expect(await writeSettlements(db, decided, Date.now())).toEqual({ settled: 3, already: 0 });
      expect(sizes).toEqual([5]); // guards, order updates with their audit ticks, transfer records, balances, owners' notices: one set-based statement each
      sizes.length = 0;
      expect(await writeSettlements(db, decided, Date.now())).toEqual({ settled: 0, already: 3 });
      expect(sizes).toEqual([5]); // refused once; none still open, so nothing is retried
    } finally {
      client.batch = realBatch;
    }
    const rows = await db.select().from(orders).where(inArray(orders.id, placed.map((o) => o.id)));
    expect(rows.map((o) => [o.status, o.settlement_price_e8, o.profit_micro])).toEqual([
      ["won", 102 * 1e8, 8_400_000], // 8.50 income less the 0.10 fee
      ["lost", 102 * 1e8, -10_100_000],
      ["won", 102 * 1e8, 8_400_000], // 8.50 income less the 0.10 fee
    ]);
    // The audit ticks are in the order's own row (decision 169), none in the older table.
    const audit = (await orderTicks(db, rows)).get(placed[0].id) ?? [];
    expect(audit.filter((t) => t.role !== "context").map((t) => [t.role, t.ts_ms])).toEqual([["entry", entry.ts_ms + 1000], ["settlement", entry.ts_ms + 2000]]);
    expect(audit.map((t) => t.ts_ms)).toEqual(ticks.map((t) => t.ts_ms));
    expect(JSON.parse(rows.find((o) => o.id === placed[0].id)!.audit_ticks!)[1]).toEqual([entry.ts_ms + 1000, 101 * 1e8, "entry", null]);
    expect(await db.select().from(order_ticks).where(inArray(order_ticks.order_id, placed.map((o) => o.id)))).toEqual([]);
    const moves = await db.select().from(transitions).where(and(eq(transitions.entity, "order"), inArray(transitions.entity_id, placed.map((o) => o.id))));
    expect(moves.map((m) => m.to_state).sort()).toEqual(["lost", "won", "won"]);
    expect(await balance(u.token)).toEqual({ available: 100 * USDT - 3 * 10.1 * USDT + 2 * 18.5 * USDT, locked: 0 });
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("an order with no tick near delivery, or none after acceptance, is void and fully refunded", async () => {
    const u = await user(200);
    const price = await currentPrice(FAST_ID);
    const r = await call("/api/order/addorder", { product_id: FAST_ID, direction: "down", amount: "100", seconds: 2, quote_price: price }, { token: u.token });
    const order = await entered(r.data.id);
    // Its entry stored, and no tick at delivery.
    const res = await writeSettlements(db, [decide(order, [])], Date.now());
    expect(res.settled).toBe(1);
    const info = await call("/api/order/orderinfo", { id: r.data.id }, { token: u.token });
    expect(info.data).toMatchObject({ status: "void", void_reason: "no_tick", payout: "101.00", settlement_price: null });
    expect(await balance(u.token)).toEqual({ available: 200 * USDT, locked: 0 });
    // Written as of a minute ago, when no tick followed: no entry, void, with its reason in words.
    const product = (await getProduct(db, FAST_ID))!;
    const then = Date.now() - 60_000;
    const c = checkOrder(product, { user_id: u.id, product_id: FAST_ID, direction: "up", stake_micro: 10 * USDT, seconds: 2, quote_price_e8: 100 * 1e8, request_key: `client:${rkey("noentry")}` }, { ts_ms: then, price_e8: 100 * 1e8 }, then);
    if (c.status !== "ok") throw new Error(c.status);
    const [w] = await writeOrders(db, [c.order]);
    if (w.status !== "ok") throw new Error(w.status);
    expect((await writeSettlements(db, [decide(w.order, [])], Date.now())).settled).toBe(1);
    const none = await call("/api/order/orderinfo", { id: w.order.id }, { token: u.token });
    expect(none.data).toMatchObject({ status: "void", void_reason: "no_entry_tick", entry_price: null, payout: "10.10" });
    expect(await balance(u.token)).toEqual({ available: 200 * USDT, locked: 0 });
  });

  it("another user's order is not visible", async () => {
    const a = await user(100);
    const b = await user(100);
    const price = await currentPrice(FAST_ID);
    const r = await call("/api/order/addorder", { product_id: FAST_ID, direction: "up", amount: "10", seconds: 2, quote_price: price }, { token: a.token });
    expect((await call("/api/order/orderinfo", { id: r.data.id }, { token: b.token })).status).toBe(404);
  });
});

describe("operators configure markets", () => {
  it("saves a product with durations, audited; nothing about outcomes is configurable", async () => {
    const op = await operator();
    const body = {
      reason: "new market",
      symbol: "SOL/USDT",
      name: "Solana",
      feed_symbol: "SOLUSDT",
      start_price: "150.25",
      tick_size: "0.01",
      fee_rate_bp: 80,
      quote_tolerance_bp: 40,
      trading_hours: "",
      enabled: "1",
      durations: JSON.stringify([{ seconds: 60, profit_rate_bp: 8700, min_amount: "5", max_amount: "500" }]),
    };
    expect((await call("/api/admin/products/save", body)).status).toBe(401);
    expect((await call("/api/admin/products/save", { ...body, reason: "" }, { token: op })).data.error).toBe("incomplete");
    expect((await call("/api/admin/products/save", { ...body, symbol: "SOLUSDT" }, { token: op })).data.error).toBe("invalid_field");
    // A new market is a proposal as a whole: nothing trades until a second operator opens it.
    const proposed = await call("/api/admin/products/save", body, { token: op });
    expect(proposed.code).toBe(1);
    expect(proposed.data).toMatchObject({ id: null, proposal_id: expect.any(Number) });
    expect((await call("/api/index/product_list")).data.some((p: { symbol: string }) => p.symbol === "SOL/USDT")).toBe(false);
    expect((await call(`/api/admin/terms/proposals/${proposed.data.proposal_id}/open`, {}, { token: op })).data.error).toBe("terms_same_operator");
    await openTerms(proposed.data.proposal_id);
    const list = await call("/api/index/product_list");
    const sol = list.data.find((p: { symbol: string }) => p.symbol === "SOL/USDT");
    expect(sol).toMatchObject({ name: "Solana", fee_rate_bp: 80, terms_version: 1, durations: [{ seconds: 60, profit_rate: 0.87, min_amount: "5.00", max_amount: "500.00" }] });
    const audit = await call("/api/admin/audit", { action: "terms." }, { token: op });
    expect(audit.data.items.slice(0, 2)).toMatchObject([
      { action: "terms.open", target: "market:SOL/USDT" },
      { action: "terms.propose", target: "market:SOL/USDT", reason: "new market" },
    ]);
    // The market's hub takes a console change at once: the next order carries the new rate.
    const u = await user(100);
    const order = async () =>
      (await call("/api/order/addorder", { product_id: sol.id, direction: "up", amount: "10", seconds: 60, quote_price: (await call("/api/index/product", { id: sol.id })).data.price, client_order_id: rkey("sol") }, { token: u.token })).data.order;
    expect((await order()).profit_rate_bp).toBe(8700);
    const changed = { ...body, reason: "rate change", durations: JSON.stringify([{ seconds: 60, profit_rate_bp: 8000, min_amount: "5", max_amount: "500" }]) };
    const rateChange = await call("/api/admin/products/save", changed, { token: op });
    expect(rateChange.data.proposal_id).toBeGreaterThan(0);
    // Until it is opened, orders keep the terms in force.
    expect((await order()).profit_rate_bp).toBe(8700);
    await openTerms(rateChange.data.proposal_id);
    expect((await order()).profit_rate_bp).toBe(8000);
    expect((await call("/api/admin/products/save", { ...changed, enabled: "0" }, { token: op })).code).toBe(1);
    expect((await call("/api/order/addorder", { product_id: sol.id, direction: "up", amount: "10", seconds: 60, quote_price: "150", client_order_id: rkey("off") }, { token: u.token })).status).toBe(404);
    const keys = Object.keys((await call("/api/admin/products", {}, { token: op })).data[0]);
    expect(keys.some((k) => /outcome|result|win|force/i.test(k))).toBe(false);
  });
});
