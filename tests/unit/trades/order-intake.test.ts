import { describe, expect, it } from "vitest";
import { OrderIntake, ORDER_GROUP_MAX, type Market } from "../../../durable-objects/quotes/order-intake";
import { NO_EXPOSURE, withOrder, worstCase, type Exposure } from "../../../worker/domain/trades/exposure";
import type { CheckedOrder, PlaceOrder, PlaceResult } from "../../../worker/domain/trades/order-check";
import type { Order } from "../../../worker/domain/trades/orders";
import type { ProductWithDurations } from "../../../worker/domain/trades/products";
import { input, product, USDT } from "./market-fixture";

const UP = { direction: "up" as const, stake_micro: 100 * USDT, profit_rate_bp: 8500 };

/** A market whose writes wait until the test lets them finish, one gate per batch. */
function fakeMarket(opts: { product?: ProductWithDurations; exposure?: Exposure; replay?: PlaceResult | null; funds?: () => number } = {}) {
  const batches: CheckedOrder[][] = [];
  const gates: ((outcome?: Error) => void)[] = [];
  let loads = 0;
  let written = 0;
  let fundsReads = 0;
  const market: Market = {
    load: async () => {
      loads++;
      return { product: opts.product ?? product, exposure: opts.exposure ?? NO_EXPOSURE };
    },
    write: (orders) => {
      batches.push([...orders]);
      return new Promise((resolve, reject) =>
        gates.push((err) => (err ? reject(err) : resolve(orders.map((o) => ({ status: "ok", order: { id: ++written, user_id: o.input.user_id } as Order, replayed: false }))))),
      );
    },
    replay: async () => opts.replay ?? null,
    funds: async () => {
      fundsReads++;
      return opts.funds?.() ?? 1e15;
    },
  };
  return { market, batches, gates, loads: () => loads, fundsReads: () => fundsReads };
}

function intake(m: ReturnType<typeof fakeMarket>, clock = { now: 1_800_000_000_000 }) {
  return new OrderIntake({ market: m.market, symbol: () => "BTC/USDT", now: () => clock.now });
}

const order = (n: number, over: Partial<PlaceOrder> = {}): PlaceOrder => ({ ...input, user_id: n, request_key: `client:${n}`, ...over });
const fresh = (clock = { now: 1_800_000_000_000 }) => async () => ({ ts_ms: clock.now, price_e8: 60_000e8 });
const settle = () => new Promise((r) => setTimeout(r, 0));

describe("OrderIntake: group commit", () => {
  it("a retry racing its original waits for it and is answered as its replay, not refused for funds", async () => {
    // Funds for one order (100 staked + 1 fee), not two: the retry must not be judged as a second order.
    const m = fakeMarket({ funds: () => 150 * USDT });
    let stored: Order | null = null;
    m.market.replay = async (i) => (stored && i.request_key === "client:1" ? { status: "ok", order: stored, replayed: true } : null);
    const write = m.market.write;
    m.market.write = async (orders) => {
      const results = await write(orders);
      const first = results[0];
      if (first.status === "ok") stored = first.order;
      return results;
    };
    const hub = intake(m);
    const original = hub.place(order(1), fresh());
    const retry = hub.place(order(1), fresh());
    await settle();
    m.gates[0]();
    const [a, b] = await Promise.all([original, retry]);
    expect(a).toMatchObject({ status: "ok", replayed: false });
    expect(b).toMatchObject({ status: "ok", replayed: true });
    expect(b.status === "ok" && a.status === "ok" && b.order.id).toBe(a.status === "ok" && a.order.id);
    expect(m.batches.flat()).toHaveLength(1);
  });

  it("writes the first order at once and those arriving meanwhile together, each with its own answer", async () => {
    const m = fakeMarket();
    const hub = intake(m);
    const first = hub.place(order(1), fresh());
    await settle();
    const rest = [2, 3, 4].map((n) => hub.place(order(n), fresh()));
    await settle();
    expect(m.batches.map((b) => b.map((o) => o.input.user_id))).toEqual([[1]]);
    m.gates[0]();
    await settle();
    expect(m.batches.map((b) => b.map((o) => o.input.user_id))).toEqual([[1], [2, 3, 4]]);
    m.gates[1]();
    const answers = await Promise.all([first, ...rest]);
    expect(answers.map((a) => (a.status === "ok" ? a.order.user_id : a.status))).toEqual([1, 2, 3, 4]);
  });

  it(`puts at most ${ORDER_GROUP_MAX} orders in one batch`, async () => {
    const m = fakeMarket({ product: { ...product, exposure_limit_micro: 1e15 } });
    const hub = intake(m);
    // One written alone, then more than a group waiting behind it: a full group and the rest.
    const all = Array.from({ length: 1 + ORDER_GROUP_MAX + 5 }, (_, i) => hub.place(order(i + 1), fresh()));
    for (let i = 0; i < 3; i++) {
      await settle();
      m.gates[i]();
    }
    await Promise.all(all);
    expect(m.batches.map((b) => b.length)).toEqual([1, ORDER_GROUP_MAX, 5]);
  });

  it("tells each written group's size and write time (the hub's order_group metric point)", async () => {
    const m = fakeMarket();
    const clock = { now: 1_800_000_000_000 };
    const groups: [number, number][] = [];
    const hub = new OrderIntake({ market: m.market, symbol: () => "BTC/USDT", now: () => clock.now, onGroup: (orders, write_ms) => void groups.push([orders, write_ms]) });
    const first = hub.place(order(1), fresh(clock));
    await settle();
    const rest = [2, 3].map((n) => hub.place(order(n), fresh(clock)));
    await settle();
    clock.now += 7;
    m.gates[0]();
    await settle();
    clock.now += 3;
    m.gates[1]();
    await Promise.all([first, ...rest]);
    expect(groups).toEqual([
      [1, 7],
      [2, 3],
    ]);
  });

  it("a failed batch fails each of its callers and frees their reserved risk", async () => {
    const m = fakeMarket();
    const hub = intake(m);
    const first = hub.place(order(1), fresh());
    await settle();
    const second = hub.place(order(2), fresh());
    await settle();
    m.gates[0](new Error("D1 down"));
    await expect(first).rejects.toThrow("D1 down");
    await settle();
    m.gates[1]();
    expect((await second).status).toBe("ok");
    expect(hub.openExposure()).toEqual(withOrder(NO_EXPOSURE, UP));
  });
});

describe("OrderIntake: exposure", () => {
  it("reserves each accepted order's risk at once, so concurrent orders over the limit are refused", async () => {
    const two = withOrder(withOrder(NO_EXPOSURE, UP), UP);
    const m = fakeMarket({ product: { ...product, exposure_limit_micro: worstCase(two) } });
    const hub = intake(m);
    const answers = [1, 2, 3].map((n) => hub.place(order(n), fresh()));
    await settle();
    expect(hub.openExposure()).toEqual(two);
    m.gates[0]();
    await settle();
    m.gates[1]();
    expect((await Promise.all(answers)).map((a) => a.status)).toEqual(["ok", "ok", "exposure_limit"]);
    expect(hub.openExposure()).toEqual(two);
  });

  it("adds to the loaded exposure, and settled orders leave it", async () => {
    const m = fakeMarket({ exposure: withOrder(NO_EXPOSURE, UP) });
    const hub = intake(m);
    expect(hub.loaded).toBe(false);
    const placed = hub.place(order(1), fresh());
    await settle();
    expect(hub.loaded).toBe(true);
    m.gates[0]();
    await placed;
    expect(hub.openExposure()).toEqual(withOrder(withOrder(NO_EXPOSURE, UP), UP));
    hub.release([{ direction: "up", stake_micro: 100 * USDT, profit_rate_bp: 8500 } as Order]);
    expect(hub.openExposure()).toEqual(withOrder(NO_EXPOSURE, UP));
  });

  it("stops at zero when more was settled than it knew of, and reads the market again", async () => {
    const m = fakeMarket();
    const hub = intake(m);
    await hub.currentProduct();
    hub.release([{ direction: "down", stake_micro: 100 * USDT, profit_rate_bp: 8500 } as Order]);
    expect(hub.openExposure()).toEqual(NO_EXPOSURE);
    await hub.currentProduct();
    expect(m.loads()).toBe(2);
  });
});

describe("OrderIntake: the product's rules", () => {
  it("are read once while fresh (one read for concurrent callers), again after 5 s or when forgotten", async () => {
    const m = fakeMarket();
    const clock = { now: 1_800_000_000_000 };
    const hub = intake(m, clock);
    await Promise.all([hub.currentProduct(), hub.currentProduct()]);
    clock.now += 4_999;
    await hub.currentProduct();
    expect(m.loads()).toBe(1);
    clock.now += 1;
    await hub.currentProduct();
    expect(m.loads()).toBe(2);
    hub.forgetProduct();
    await hub.currentProduct();
    expect(m.loads()).toBe(3);
  });

  it("a refused order that repeats one already placed answers with that order", async () => {
    const earlier: PlaceResult = { status: "ok", order: { id: 41 } as Order, replayed: true };
    const m = fakeMarket({ replay: earlier });
    const stale = async () => ({ ts_ms: 0, price_e8: 60_000e8 });
    expect(await intake(m).place(order(1), stale)).toBe(earlier);
    expect(await intake(fakeMarket()).place(order(1), stale)).toEqual({ status: "price_stale" });
    expect(m.batches).toEqual([]);
  });
});

describe("OrderIntake: in-flight stakes are capped by the balance", () => {
  const cost = input.stake_micro + Math.floor((input.stake_micro * product.fee_rate_bp) / 10_000);

  it("an empty account's orders are refused before they reserve any exposure or reach the database", async () => {
    const m = fakeMarket({ funds: () => 0 });
    const hub = intake(m);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => hub.place(order(9, { request_key: `client:e${i}` }), fresh())));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill("insufficient_funds"));
    expect(m.batches).toEqual([]);
    expect(worstCase(hub.openExposure())).toBe(0);
    // One read of the balance for all ten.
    expect(m.fundsReads()).toBe(1);
  });

  it("orders in flight count against the balance: of two that each fit alone, one is reserved", async () => {
    const m = fakeMarket({ funds: () => cost + cost / 2 });
    const hub = intake(m);
    const a = hub.place(order(5, { request_key: "client:a" }), fresh());
    const b = hub.place(order(5, { request_key: "client:b" }), fresh());
    await settle();
    expect((await b).status).toBe("insufficient_funds");
    m.gates[0]();
    expect((await a).status).toBe("ok");
    expect(m.batches.flat().length).toBe(1);
  });

  it("a balance that looks short is read again a second later (money arrived since), and the order goes through", async () => {
    let funds = 0;
    const clock = { now: 1_800_000_000_000 };
    const m = fakeMarket({ funds: () => funds });
    const hub = intake(m, clock);
    expect((await hub.place(order(6, { request_key: "client:x" }), fresh(clock))).status).toBe("insufficient_funds");
    funds = 10 * cost;
    // Within the second: not read again.
    expect((await hub.place(order(6, { request_key: "client:w" }), fresh(clock))).status).toBe("insufficient_funds");
    expect(m.fundsReads()).toBe(1);
    clock.now += 1_000;
    const placed = hub.place(order(6, { request_key: "client:y" }), fresh(clock));
    await settle();
    m.gates[0]();
    expect((await placed).status).toBe("ok");
    expect(m.fundsReads()).toBe(2);
  });
});
