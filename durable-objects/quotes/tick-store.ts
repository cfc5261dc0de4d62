/**
 * A hub's prices in its own SQLite storage: the ticks (kept for the settlement audit), the
 * 1-minute candles built from them (kept for the charts) and a small key-value table for what
 * the hub must remember across restarts. Takes the storage as an argument, so it is tested
 * over any SqlStorage (tests/api/trades/tick-store.test.ts).
 */
import type { Tick } from "../../worker/domain/trades/settlement";
import { DAY_MS, foldTick, MINUTE_MS, resample, type Candle } from "./candles";
import type { FeedTick } from "./feed";
import { SimEpochs } from "./sim-epochs";
import type { Sql } from "./sql";

/** Ticks are kept 6 hours (settlement audit), minute candles 8 days (charts). */
const TICK_RETENTION_MS = 6 * 3600_000;
const CANDLE_RETENTION_MS = 8 * DAY_MS;
/** Resampling reads at most this many minute candles (two weeks). */
const MAX_MINUTES_READ = 20_000;

type TickRow = { ts_ms: number; price_e8: number; trade_id: string | null };
/** A stored tick; the upstream's trade id only when there is one. */
const tickOf = (r: TickRow): Tick => (r.trade_id === null ? { ts_ms: r.ts_ms, price_e8: r.price_e8 } : { ts_ms: r.ts_ms, price_e8: r.price_e8, trade_id: r.trade_id });

export class TickStore {
  constructor(readonly sql: Sql) {}

  /** Creates the tables (idempotent; the constructor of the hub runs it). */
  init() {
    this.sql.exec("CREATE TABLE IF NOT EXISTS ticks (ts_ms INTEGER PRIMARY KEY, price_e8 INTEGER NOT NULL, volume_e8 INTEGER NOT NULL, trade_id TEXT)");
    // Hubs created before ticks named their upstream trade.
    if (!this.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('ticks')").toArray().some((c) => c.name === "trade_id")) this.sql.exec("ALTER TABLE ticks ADD COLUMN trade_id TEXT");
    this.sql.exec("CREATE TABLE IF NOT EXISTS candles (t_ms INTEGER PRIMARY KEY, o INTEGER, h INTEGER, l INTEGER, c INTEGER, v INTEGER)");
    this.sql.exec("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
    new SimEpochs(this.sql).init();
  }

  meta<T>(k: string): T | null {
    const row = this.sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = ?", k).toArray()[0];
    return row ? (JSON.parse(row.v) as T) : null;
  }

  setMeta(k: string, v: unknown) {
    this.sql.exec("INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", k, JSON.stringify(v));
  }

  /**
   * The latest tick, from memory once read: every order asks for it, and only `append` adds a
   * later one (pruning never removes the latest).
   */
  latest(): Tick | null {
    if (this.last === undefined) {
      const row = this.sql.exec<TickRow>("SELECT ts_ms, price_e8, trade_id FROM ticks ORDER BY ts_ms DESC LIMIT 1").toArray()[0];
      this.last = row ? tickOf(row) : null;
    }
    return this.last;
  }

  /** The latest tick as stored (undefined: not read yet). */
  private last: Tick | null | undefined = undefined;

  /**
   * Stores a tick and folds it into its minute's candle. Ticks only move forward: one at or
   * before the latest is not stored (`added` false, and `tick` is the latest).
   */
  append(tick: FeedTick): { added: boolean; tick: Tick } {
    const last = this.latest();
    if (last && tick.ts_ms <= last.ts_ms) return { added: false, tick: last };
    this.sql.exec("INSERT INTO ticks (ts_ms, price_e8, volume_e8, trade_id) VALUES (?, ?, ?, ?)", tick.ts_ms, tick.price_e8, tick.volume_e8, tick.trade_id ?? null);
    const current = this.sql.exec<Candle>("SELECT t_ms, o, h, l, c, v FROM candles ORDER BY t_ms DESC LIMIT 1").toArray()[0] ?? null;
    this.saveCandle(foldTick(current, tick));
    this.last = tickOf({ ts_ms: tick.ts_ms, price_e8: tick.price_e8, trade_id: tick.trade_id ?? null });
    return { added: true, tick: this.last };
  }

  /** Writes a minute candle (a later write of the same minute keeps its open). */
  saveCandle(c: Candle) {
    this.sql.exec("INSERT INTO candles (t_ms, o, h, l, c, v) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(t_ms) DO UPDATE SET h = excluded.h, l = excluded.l, c = excluded.c, v = excluded.v", c.t_ms, c.o, c.h, c.l, c.c, c.v);
  }

  /** The first tick after `after_ms` and at or before `until_ms` (an order's entry), or null. */
  firstAfter(after_ms: number, until_ms: number): Tick | null {
    const row = this.sql.exec<TickRow>("SELECT ts_ms, price_e8, trade_id FROM ticks WHERE ts_ms > ? AND ts_ms <= ? ORDER BY ts_ms LIMIT 1", after_ms, until_ms).toArray()[0];
    return row ? tickOf(row) : null;
  }

  ticks(from_ms: number, to_ms: number): Tick[] {
    return this.sql.exec<TickRow>("SELECT ts_ms, price_e8, trade_id FROM ticks WHERE ts_ms BETWEEN ? AND ? ORDER BY ts_ms", from_ms, to_ms).toArray().map(tickOf);
  }

  /** Minute candles from `since_ms` on, oldest first. */
  minutesSince(since_ms: number): Candle[] {
    return this.sql.exec<Candle>("SELECT t_ms, o, h, l, c, v FROM candles WHERE t_ms >= ? ORDER BY t_ms", since_ms).toArray();
  }

  /** The latest `limit` candles of `interval_ms`, oldest first. */
  candles(interval_ms: number, limit: number): Candle[] {
    const minutes = this.sql
      .exec<Candle>("SELECT t_ms, o, h, l, c, v FROM candles ORDER BY t_ms DESC LIMIT ?", Math.min(limit * (interval_ms / MINUTE_MS), MAX_MINUTES_READ))
      .toArray()
      .reverse();
    return resample(minutes, interval_ms).slice(-limit);
  }

  prune(now: number) {
    this.sql.exec("DELETE FROM ticks WHERE ts_ms < ?", now - TICK_RETENTION_MS);
    this.sql.exec("DELETE FROM candles WHERE t_ms < ?", now - CANDLE_RETENTION_MS);
  }
}
