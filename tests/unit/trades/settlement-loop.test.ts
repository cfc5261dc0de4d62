import { describe, expect, it } from "vitest";
import type { Outcome } from "../../../durable-objects/quotes/notify";
import { settleDue, SETTLE_CHUNK, SETTLE_PER_INVOCATION, type DueOrders, type SettlementDeps } from "../../../durable-objects/quotes/settlement-loop";
import type { Order } from "../../../worker/domain/trades/orders";
import type { Settlement } from "../../../worker/domain/trades/settlement-writes";
import type { Tick } from "../../../worker/domain/trades/settlement";

const T = 1_800_000_000_000;
const ENTRY = 100e8;

function mk(id: number, user_id: number, delivery_at_ms = T - 1_000): Order {
  return { id, user_id, direction: "up", stake_micro: 10_000_000, fee_micro: 0, profit_rate_bp: 8500, entry_price_e8: ENTRY, entry_tick_ts_ms: delivery_at_ms - 30_000, created_at_ms: delivery_at_ms - 30_001, delivery_at_ms, status: "open", wallet: "real" } as Order;
}

/** Open orders in memory, read as dueOrders reads D1 (oldest delivery, then user, then id). */
function fakeOrders(list: Order[]) {
  const horizons: number[] = [];
  const byId = new Map(list.map((o) => [o.id, o]));
  const orders: DueOrders = {
    due: async (_symbol, horizon_ms, limit) => {
      horizons.push(horizon_ms);
      return list
        .filter((o) => o.status === "open" && o.delivery_at_ms <= horizon_ms)
        .sort((a, b) => a.delivery_at_ms - b.delivery_at_ms || a.user_id - b.user_id || a.id - b.id)
        .slice(0, limit);
    },
    write: async (items: Settlement[], _now, onSettled) => {
      for (const s of items) byId.get(s.order.id)!.status = s.outcome.status;
      onSettled(items);
      return { settled: items.length, already: 0 };
    },
  };
  return { orders, horizons };
}

function fakeHub(ticks: Tick[]) {
  const told: [number, Outcome[]][] = [];
  const released: number[] = [];
  let tracked = 0;
  let beats = 0;
  let bursts = 0;
  const deps: SettlementDeps = {
    ticks: { ticks: (from, to) => ticks.filter((t) => t.ts_ms >= from && t.ts_ms <= to), latest: () => ticks[ticks.length - 1] ?? null },
    exposure: {
      track: (write) => {
        tracked++;
        return write();
      },
      release: (settled) => void released.push(...settled.map((o) => o.id)),
    },
    notify: async (user_id, outcomes) => void told.push([user_id, outcomes]),
    keepBeat: () => void beats++,
    onBurst: () => void bursts++,
  };
  return { deps, told, released, tracked: () => tracked, beats: () => beats, bursts: () => bursts };
}

describe("settleDue", () => {
  it("settles what is due from the hub's ticks, waits for a tick up to 5 s, and tells each owner once", async () => {
    const hub = fakeHub([{ ts_ms: T - 1_000, price_e8: ENTRY + 1e6 }]);
    const list = [mk(1, 7), mk(2, 7), mk(3, 8), mk(4, 9, T + 500)];
    const { orders, horizons } = fakeOrders(list);
    const r = await settleDue(hub.deps, orders, "BTC/USDT", T + 2_000);
    // The oldest delivery among the orders taken: the settlement lag is measured from it.
    expect(r).toEqual({ settled: 3, already: 0, more: false, oldest_delivery_at_ms: T - 1_000 });
    // No tick after the latest yet, and its delivery is not 5 s past: order 4 waits.
    expect(horizons).toEqual([T - 1_000]);
    expect(list.map((o) => o.status)).toEqual(["won", "won", "won", "open"]);
    expect(hub.told).toEqual([
      [7, [{ order_id: 1, status: "won" }, { order_id: 2, status: "won" }]],
      [8, [{ order_id: 3, status: "won" }]],
    ]);
    expect(hub.released).toEqual([1, 2, 3]);
    expect(hub.tracked()).toBe(1);

    const later = await settleDue(hub.deps, orders, "BTC/USDT", T + 5_500);
    expect(later.settled).toBe(1);
    expect(later.oldest_delivery_at_ms).toBe(T + 500);
    expect(list[3].status).toBe("won");
  });

  it("a user whose orders span two batches hears once, after the last of them", async () => {
    const hub = fakeHub([{ ts_ms: T - 1_000, price_e8: ENTRY - 1e6 }]);
    const list = [...Array.from({ length: SETTLE_CHUNK - 1 }, (_, i) => mk(i + 1, 1)), ...Array.from({ length: 101 }, (_, i) => mk(SETTLE_CHUNK + i, 2))];
    const r = await settleDue(hub.deps, fakeOrders(list).orders, "BTC/USDT", T);
    expect(r.settled).toBe(600);
    expect(hub.told.map(([user, outcomes]) => [user, outcomes.length])).toEqual([
      [1, SETTLE_CHUNK - 1],
      [2, 101],
    ]);
    expect(hub.beats()).toBe(1);
    expect(hub.tracked()).toBe(2);
  });

  it(`stops after ${SETTLE_PER_INVOCATION} orders and says more are due; the rest settle on the next run`, async () => {
    const hub = fakeHub([{ ts_ms: T - 1_000, price_e8: ENTRY }]);
    const list = Array.from({ length: SETTLE_PER_INVOCATION + 200 }, (_, i) => mk(i + 1, i + 1));
    const { orders } = fakeOrders(list);
    expect(await settleDue(hub.deps, orders, "BTC/USDT", T)).toEqual({ settled: SETTLE_PER_INVOCATION, already: 0, more: true, oldest_delivery_at_ms: T - 1_000 });
    expect(hub.told).toHaveLength(SETTLE_PER_INVOCATION);
    expect(await settleDue(hub.deps, orders, "BTC/USDT", T)).toEqual({ settled: 200, already: 0, more: false, oldest_delivery_at_ms: T - 1_000 });
    expect(list.every((o) => o.status === "tie")).toBe(true);
  });

  it("calls a full first chunk a burst (the log holds for it), once a run, and fewer due orders not", async () => {
    const hub = fakeHub([{ ts_ms: T - 1_000, price_e8: ENTRY }]);
    const { orders } = fakeOrders(Array.from({ length: SETTLE_CHUNK - 1 }, (_, i) => mk(i + 1, i + 1)));
    await settleDue(hub.deps, orders, "BTC/USDT", T);
    expect(hub.bursts()).toBe(0);
    const burst = fakeOrders(Array.from({ length: 3 * SETTLE_CHUNK }, (_, i) => mk(i + 1, i + 1)));
    expect((await settleDue(hub.deps, burst.orders, "BTC/USDT", T)).settled).toBe(3 * SETTLE_CHUNK);
    expect(hub.bursts()).toBe(1);
  });

  it("a failed notice does not fail the settlement", async () => {
    const hub = fakeHub([{ ts_ms: T - 1_000, price_e8: ENTRY + 1e6 }]);
    hub.deps.notify = async () => {
      throw new Error("channel down");
    };
    expect((await settleDue(hub.deps, fakeOrders([mk(1, 7)]).orders, "BTC/USDT", T)).settled).toBe(1);
  });
});
