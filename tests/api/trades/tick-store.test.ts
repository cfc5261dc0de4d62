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
import { hourEnd as hourEndOf, simParams } from "../../../durable-objects/quotes/sim-epochs";
import { hex, sha256Hex } from "../../../worker/domain/transparency/verify";
import { SIM_WALK, simPrices } from "../../../worker/domain/quotes/sim-walk";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import type { Sql } from "../../../durable-objects/quotes/sql";
import { TickStore } from "../../../durable-objects/quotes/tick-store";
import { NO_EXPOSURE, withOrder } from "../../../worker/domain/trades/exposure";
import { testEnv } from "../helpers";

const utf8 = (t: string) => new TextEncoder().encode(t);
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
  const seeds = (tag: string) => (symbol: string, from_s: number) => hmac(sha256, utf8(tag), utf8(`${symbol}:${from_s}`));
  const S0 = T0 / 1000;

  it("backfills a day of candles, then ticks on whole seconds, each hour committed before it starts", async () => {
    const r = await inFreshHub((sql) => {
      const store = new TickStore(sql);
      store.init();
      const sim = new Simulation(store, seededRandom(1), seeds("a"));
      sim.backfill(CONFIG, T0 + 250);
      const minutes = store.minutesSince(0);
      const dueAtStart = sim.due(T0 + 250);
      const first = sim.next(CONFIG, T0 + 250);
      store.append(first);
      const dueSameSecond = sim.due(T0 + 999);
      const second = sim.next(CONFIG, T0 + 1_400);
      const log = sim.unlogged(T0 + 1_400);
      return { count: minutes.length, start: minutes[0].t_ms, dueAtStart, dueSameSecond, first, second, log, epochs: [sim.epochs.at(S0), sim.epochs.at(hourEndOf(S0))] };
    });
    expect(r.count).toBeGreaterThan(1_400);
    expect(r.start).toBe(T0 - DAY_MS);
    expect([r.dueAtStart, r.dueSameSecond]).toEqual([true, false]);
    expect([r.first.ts_ms, r.second.ts_ms]).toEqual([T0, T0 + 1_000]);
    // The first hour runs from the first tick to the whole hour; the next is fixed already.
    expect(r.epochs[0]).toMatchObject({ from_s: S0, to_s: hourEndOf(S0), prev_from_s: null });
    expect(r.epochs[1]).toMatchObject({ from_s: hourEndOf(S0), to_s: hourEndOf(S0) + 3600, prev_from_s: S0, start_e8: null });
    // Both commitments, no seed yet: neither hour is over.
    expect(r.log.map((x) => x.kind)).toEqual(["sim_commit", "sim_commit"]);
    const commit = JSON.parse(r.log[0].payload);
    expect(commit).toMatchObject({ kind: "sim_commit", symbol: "SIM/USDT", from_ms: T0, to_ms: hourEndOf(S0) * 1000, walk: SIM_WALK, after_ms: null });
    expect(commit.seed_sha256).toBe(sha256Hex(r.epochs[0]!.seed));
    expect(r.log[0].payload).not.toContain(hex(r.epochs[0]!.seed));
    // The ticks are the committed walk's, recomputed from the seed alone.
    const prices = simPrices(r.epochs[0]!.seed, "SIM/USDT", S0, S0 + 2, BigInt(r.epochs[0]!.start_e8!), simParams(CONFIG.tick_size_e8));
    expect([r.first.price_e8, r.second.price_e8]).toEqual(prices.map(Number));
  });

  it("a restart walks on through the seconds it missed as if it had run, and across the hour into the committed one", async () => {
    const later = (hourEndOf(S0) + 20) * 1000;
    const r = await inFreshHub((sql) => {
      const store = new TickStore(sql);
      store.init();
      new Simulation(store, seededRandom(1), seeds("b")).next(CONFIG, T0);
      // A new Simulation over the same storage (a restarted hub), asked much later.
      const resumed = new Simulation(store, seededRandom(2), seeds("other"));
      const tick = resumed.next(CONFIG, later);
      const [a, b] = [resumed.epochs.at(S0)!, resumed.epochs.at(hourEndOf(S0))!];
      const log = resumed.unlogged(later);
      return { tick, a, b, log };
    });
    const p = simParams(CONFIG.tick_size_e8);
    const hour = simPrices(r.a.seed, "SIM/USDT", S0, r.a.to_s, BigInt(r.a.start_e8!), p);
    const next = simPrices(r.b.seed, "SIM/USDT", r.b.from_s, hourEndOf(S0) + 21, hour[hour.length - 1], p);
    expect(r.tick).toMatchObject({ ts_ms: later, price_e8: Number(next[next.length - 1]) });
    // The first hour is over: its seed goes out; the third hour is committed ahead.
    expect(r.log.map((x) => [x.kind, x.from_s])).toEqual([
      ["sim_commit", S0],
      ["sim_reveal", S0],
      ["sim_commit", hourEndOf(S0)],
      ["sim_commit", hourEndOf(S0) + 3600],
    ]);
    expect(JSON.parse(r.log[1].payload)).toEqual({ kind: "sim_reveal", v: 1, symbol: "SIM/USDT", from_ms: T0, seed: hex(r.a.seed) });
  });

  it("an order's question 'anything to log first?' reads no storage once all is logged, until an hour ends or one is added", async () => {
    const r = await inFreshHub((sql) => {
      let reads = 0;
      const counted: Sql = { exec: ((query: string, ...args: unknown[]) => {
        if (/sim_epochs/.test(query) && /^\s*SELECT/i.test(query)) reads += 1;
        return sql.exec(query, ...args);
      }) as Sql["exec"] };
      const store = new TickStore(counted);
      store.init();
      const sim = new Simulation(store, seededRandom(1), seeds("d"));
      sim.next(CONFIG, T0);
      sim.epochs.logged(sim.unlogged(T0));
      sim.unlogged(T0 + 500); // learns that nothing is due before the first hour ends
      const before = reads;
      const quiet = [T0 + 1_000, T0 + 60_000, hourEndOf(S0) * 1000 - 1].map((t) => sim.unlogged(t).length);
      const readsWhileQuiet = reads - before;
      const atHourEnd = sim.unlogged(hourEndOf(S0) * 1000).map((x) => [x.kind, x.from_s]);
      return { quiet, readsWhileQuiet, atHourEnd };
    });
    expect(r.quiet).toEqual([0, 0, 0]);
    expect(r.readsWhileQuiet).toBe(0);
    // The hour's end is still seen: its seed is due at once.
    expect(r.atHourEnd).toEqual([["sim_reveal", S0]]);
  });

  it("after a gap with no committed hour the walk starts a new one from where it stood, chained to the last", async () => {
    const back = (hourEndOf(S0) + 3 * 3600 + 7) * 1000;
    const r = await inFreshHub((sql) => {
      const store = new TickStore(sql);
      store.init();
      const sim = new Simulation(store, seededRandom(1), seeds("c"));
      sim.next(CONFIG, T0);
      const written = sim.unlogged(T0);
      sim.epochs.logged(written);
      const tick = sim.next(CONFIG, back);
      return { tick, first: sim.epochs.at(S0)!, second: sim.epochs.at(hourEndOf(S0))!, gap: sim.epochs.at(back / 1000 - 1), fresh: sim.epochs.at(back / 1000)!, log: sim.unlogged(back) };
    });
    expect(r.gap).toBeNull();
    expect(r.fresh).toMatchObject({ from_s: back / 1000, prev_from_s: hourEndOf(S0), start_e8: null });
    const p = simParams(CONFIG.tick_size_e8);
    const one = simPrices(r.first.seed, "SIM/USDT", S0, r.first.to_s, BigInt(r.first.start_e8!), p);
    const two = simPrices(r.second.seed, "SIM/USDT", r.second.from_s, r.second.to_s, one[one.length - 1], p);
    const three = simPrices(r.fresh.seed, "SIM/USDT", r.fresh.from_s, r.fresh.from_s + 1, two[two.length - 1], p);
    expect(r.tick.price_e8).toBe(Number(three[0]));
    // Logged rows are not repeated; the two hours that ended reveal, the new one and the next commit.
    expect(r.log.map((x) => [x.kind, x.from_s])).toEqual([
      ["sim_reveal", S0],
      ["sim_reveal", hourEndOf(S0)],
      ["sim_commit", back / 1000],
      ["sim_commit", hourEndOf(back / 1000)],
    ]);
  });
});

describe("Prices", () => {
  it("simulates a tick when the last is a second old, never on the exchange feed, and sends each stored tick to the pages", async () => {
    const r = await inFreshHub(async (sql) => {
      const sent: string[] = [];
      const page: PageSocket = { send: (text) => void sent.push(String(text)), close: () => undefined };
      const feed: FeedState = { config: CONFIG, simulated: true };
      const prices = new Prices(sql, seededRandom(3), () => crypto.getRandomValues(new Uint8Array(32)), () => [page], () => feed);
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
