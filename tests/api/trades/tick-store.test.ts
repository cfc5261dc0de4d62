/**
 * The hub's storage parts over a real Durable Object's SQLite (each test in a fresh hub of its
 * own): ticks and candles, the exposure log, the simulated feed's resume and backfill, and the
 * price line that joins them.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DAY_MS, MINUTE_MS } from "../../../durable-objects/quotes/candles";
import { ExposureLog } from "../../../durable-objects/quotes/exposure-log";
import { seededRandom } from "../../../durable-objects/quotes/feed";
import type { PageSocket } from "../../../durable-objects/page-sockets";
import { Prices, type FeedState } from "../../../durable-objects/quotes/prices";
import { Simulation } from "../../../durable-objects/quotes/simulation";
import { TickStore, type Sql } from "../../../durable-objects/quotes/tick-store";
import { NO_EXPOSURE, withOrder } from "../../../worker/domain/trades/exposure";
import { testEnv } from "../helpers";

let n = 0;
/** Runs `fn` over the SQLite of a hub nobody else uses. */
function inFreshHub<T>(fn: (sql: Sql) => T): Promise<T> {
  const ns = testEnv.QUOTE_HUB;
  return runInDurableObject(ns.get(ns.idFromName(`storage test ${++n} ${Date.now()}`)), (_hub, state) => fn(state.storage.sql));
}

const T0 = 1_800_000_000_000 - (1_800_000_000_000 % MINUTE_MS);
const tick = (ts_ms: number, price: number, volume = 1) => ({ symbol: "X", ts_ms, price_e8: price * 1e8, volume_e8: volume * 1e8 });
const CONFIG = { symbol: "SIM/USDT", feed_symbol: "SIMUSDT", start_price_e8: 100e8, tick_size_e8: 1_000_000 };

describe("TickStore", () => {
  it("keeps ticks moving forward and folds them into minute candles", async () => {
    const r = await inFreshHub((sql) => {
      const store = new TickStore(sql);
      store.init();
      const added = [store.append(tick(T0 + 1_000, 100)), store.append(tick(T0 + 1_000, 999)), store.append(tick(T0 + 500, 999)), store.append(tick(T0 + 2_000, 103, 2)), store.append(tick(T0 + 3_000, 99)), store.append(tick(T0 + MINUTE_MS, 101))];
      return { added: added.map((a) => a.added), latest: store.latest(), ticks: store.ticks(T0, T0 + 2_000), minutes: store.minutesSince(T0), fiveMinutes: store.candles(5 * MINUTE_MS, 10) };
    });
    expect(r.added).toEqual([true, false, false, true, true, true]);
    expect(r.latest).toEqual({ ts_ms: T0 + MINUTE_MS, price_e8: 101e8 });
    expect(r.ticks).toEqual([
      { ts_ms: T0 + 1_000, price_e8: 100e8 },
      { ts_ms: T0 + 2_000, price_e8: 103e8 },
    ]);
    expect(r.minutes).toEqual([
      { t_ms: T0, o: 100e8, h: 103e8, l: 99e8, c: 99e8, v: 4e8 },
      { t_ms: T0 + MINUTE_MS, o: 101e8, h: 101e8, l: 101e8, c: 101e8, v: 1e8 },
    ]);
    expect(r.fiveMinutes).toEqual([{ t_ms: T0 - (T0 % (5 * MINUTE_MS)), o: 100e8, h: 103e8, l: 99e8, c: 101e8, v: 5e8 }]);
  });

  it("forgets ticks after 6 hours and candles after 8 days", async () => {
    const r = await inFreshHub((sql) => {
      const store = new TickStore(sql);
      store.append(tick(T0 - 8 * DAY_MS - MINUTE_MS, 1));
      store.append(tick(T0 - 6 * 3600_000 - 1, 2));
      store.append(tick(T0, 3));
      store.prune(T0);
      return { ticks: store.ticks(0, T0), minutes: store.minutesSince(0).map((c) => c.c) };
    });
    expect(r.ticks).toEqual([{ ts_ms: T0, price_e8: 3e8 }]);
    expect(r.minutes).toEqual([2e8, 3e8]);
  });

  it("remembers values across instances", async () => {
    const r = await inFreshHub((sql) => {
      new TickStore(sql).setMeta("config", CONFIG);
      return { config: new TickStore(sql).meta("config"), none: new TickStore(sql).meta("nothing") };
    });
    expect(r).toEqual({ config: CONFIG, none: null });
  });
});

describe("ExposureLog", () => {
  it("records a change at once, the same figures only every 10 s, and forgets after a day", async () => {
    const one = withOrder(NO_EXPOSURE, { direction: "up", stake_micro: 10_000_000, profit_rate_bp: 8500 });
    const r = await inFreshHub((sql) => {
      const log = new ExposureLog(sql);
      log.init();
      log.record(T0, NO_EXPOSURE);
      log.record(T0 + 1_000, NO_EXPOSURE);
      log.record(T0 + 2_000, one);
      log.record(T0 + 11_999, one);
      log.record(T0 + 12_000, one);
      const all = log.since(0).map((s) => [s.ts_ms - T0, s.up_payout_micro]);
      log.prune(T0 + DAY_MS + 2_000);
      return { all, kept: log.since(0).map((s) => s.ts_ms - T0) };
    });
    expect(r.all).toEqual([
      [0, 0],
      [2_000, 8_500_000],
      [12_000, 8_500_000],
    ]);
    expect(r.kept).toEqual([2_000, 12_000]);
  });
});

describe("Simulation", () => {
  it("backfills a day of candles, ticks once a second, and resumes where the walk stood", async () => {
    const r = await inFreshHub((sql) => {
      const store = new TickStore(sql);
      const sim = new Simulation(store, seededRandom(1));
      sim.backfill(CONFIG, T0);
      const minutes = store.minutesSince(0);
      const dueAtStart = sim.due(T0);
      store.append(sim.next(CONFIG, T0));
      sim.persist();
      const dueSameSecond = sim.due(T0 + 999);
      const saved = store.meta<{ price_e8: number; last_ts_ms: number }>("sim");
      // A restarted hub walks on from the saved position (500 here), not the start price (100).
      store.setMeta("sim", { price_e8: 500e8, last_ts_ms: T0 });
      const resumed = new Simulation(store, seededRandom(2)).next(CONFIG, T0 + 1_000);
      return { count: minutes.length, first: minutes[0].t_ms, dueAtStart, dueSameSecond, dueNext: sim.due(T0 + 1_000), saved, latest: store.latest(), resumed };
    });
    expect(r.count).toBeGreaterThan(1_400);
    expect(r.first).toBe(T0 - DAY_MS);
    expect([r.dueAtStart, r.dueSameSecond, r.dueNext]).toEqual([true, false, true]);
    expect(r.saved).toEqual({ price_e8: r.latest!.price_e8, last_ts_ms: T0 });
    expect(Math.abs(r.resumed.price_e8 - 500e8)).toBeLessThan(5e8);
  });
});

describe("Prices", () => {
  it("simulates a tick when the last is a second old, never on the exchange feed, and sends each stored tick to the pages", async () => {
    const r = await inFreshHub(async (sql) => {
      const sent: string[] = [];
      const page: PageSocket = { send: (text) => void sent.push(String(text)), close: () => undefined };
      const feed: FeedState = { config: CONFIG, simulated: true };
      const prices = new Prices(sql, seededRandom(3), () => [page], () => feed);
      prices.store.init();
      prices.start(T0);
      const first = prices.latest(T0);
      const same = prices.latest(T0 + 999);
      const next = prices.latest(T0 + 1_000);
      feed.simulated = false;
      const exchange = prices.latest(T0 + 5_000);
      const upstream = prices.ingest({ symbol: "SIMUSDT", ts_ms: T0 + 5_000, price_e8: 123e8, volume_e8: 1e8 });
      const stale = prices.ingest({ symbol: "SIMUSDT", ts_ms: T0 + 4_000, price_e8: 1e8, volume_e8: 1e8 });
      const quote = await prices.quote(T0 + 5_000);
      return { history: prices.store.minutesSince(0).length, first, same, next, exchange, upstream, stale, quote, ticks: sent.map((t) => JSON.parse(t)).filter((m) => m.type === "tick") };
    });
    expect(r.history).toBeGreaterThan(1_400);
    expect(r.same).toEqual(r.first);
    expect(r.next?.ts_ms).toBe(T0 + 1_000);
    expect(r.exchange).toEqual(r.next);
    expect(r.upstream).toEqual({ ts_ms: T0 + 5_000, price_e8: 123e8 });
    expect(r.stale).toEqual(r.upstream);
    expect(r.quote).toMatchObject({ price_e8: 123e8, simulated: false, ts_ms: T0 + 5_000 });
    expect(r.ticks.map((m) => [m.symbol, m.ts])).toEqual([
      ["SIM/USDT", T0],
      ["SIM/USDT", T0 + 1_000],
      ["SIM/USDT", T0 + 5_000],
    ]);
  });
});
