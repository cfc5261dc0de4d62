/**
 * The simulated feed inside a hub (decision 102). Every second of an hour follows from that
 * hour's seed (see sim-epochs.ts), so the hub stores only where the walk stands and the hours'
 * seeds, and a restart walks on through the seconds it missed exactly as if it had been running.
 * A first start also gets a day of candles, drawn from the platform's CSPRNG, so charts have
 * history; no order ever settles on them (they are older than the first committed hour).
 */
import { simStep } from "../../worker/domain/quotes/sim-walk";
import { DAY_MS, foldTick, MINUTE_MS, type Candle } from "./candles";
import { SimulatedFeed, type FeedTick, type RandomSource } from "./feed";
import type { HubConfig } from "./hub-api";
import { HOUR_S, hourEnd, simParams, SimEpochs, type Epoch, type SimLogRow } from "./sim-epochs";
import type { TickStore } from "./tick-store";

/** A tick a second, on the whole second; settlement looks for due orders on the same beat. */
export const TICK_MS = 1000;
/** The backfilled day has a tick every 15 s: enough for candles, cheap on first start. */
const BACKFILL_STEP_MS = 15_000;
/** Revealed hours stay in the hub this long (the log keeps them for good). */
const EPOCH_KEEP_MS = 8 * DAY_MS;

/** A fresh seed for the hour of `symbol` starting at `from_s`. */
export type SeedSource = (symbol: string, from_s: number) => Uint8Array;

/** Where the walk stands: its price at second `s`. */
type WalkState = { price_e8: number; s: number };

export class Simulation {
  readonly epochs: SimEpochs;

  constructor(
    private readonly store: TickStore,
    private readonly random: RandomSource,
    private readonly seeds: SeedSource,
  ) {
    this.epochs = new SimEpochs(store.sql);
  }

  /** The walk's tick for the second that holds `now`. */
  next(c: HubConfig, now: number): FeedTick {
    const target = Math.floor(now / TICK_MS);
    const w = this.store.meta<WalkState>("walk") ?? { price_e8: this.store.meta<{ price_e8: number }>("sim")?.price_e8 ?? this.store.latest()?.price_e8 ?? c.start_price_e8, s: target - 1 };
    let price = BigInt(w.price_e8);
    let s = w.s;
    let volume_e8 = 0;
    while (s < target) {
      let e = this.epochs.at(s + 1);
      if (!e) {
        // The hub was not running when the next hour began (or never ran): a new hour starts
        // now, from where the walk stood, committed before its first tick is used.
        e = this.open(c, target, now, Number(price));
        s = target - 1;
      }
      const stop = Math.min(target, e.to_s - 1);
      while (s < stop) {
        s += 1;
        const r = simStep(e.seed, c.symbol, s, price, e.params);
        price = r.price_e8;
        volume_e8 = r.volume_e8;
      }
    }
    this.commitAhead(c, target, now);
    this.store.setMeta("walk", { price_e8: Number(price), s } satisfies WalkState);
    return { symbol: c.symbol, ts_ms: target * TICK_MS, price_e8: Number(price), volume_e8 };
  }

  /** Is a tick due at `now` (none yet, or the latest is from an earlier second)? */
  due(now: number): boolean {
    const last = this.store.latest();
    return !last || Math.floor(now / TICK_MS) > Math.floor(last.ts_ms / TICK_MS);
  }

  /** The log rows the hub still has to write (commitments, and seeds of hours that are over). */
  unlogged(now: number): SimLogRow[] {
    return this.epochs.unlogged(now);
  }

  prune(now: number) {
    this.epochs.prune(now, EPOCH_KEEP_MS);
  }

  /** A new epoch from `from_s` to the end of its hour; only the very first names its start price. */
  private open(c: HubConfig, from_s: number, now: number, price_e8: number): Epoch {
    const prev = this.epochs.last();
    const e: Epoch = { symbol: c.symbol, from_s, to_s: hourEnd(from_s), seed: this.seeds(c.symbol, from_s), start_e8: prev ? null : price_e8, prev_from_s: prev?.from_s ?? null, params: simParams(c.tick_size_e8), committed_at_ms: now };
    this.epochs.add(e);
    return e;
  }

  /** The next hour is fixed as soon as this one runs: its commitment goes out an hour ahead. */
  private commitAhead(c: HubConfig, target: number, now: number) {
    const current = this.epochs.at(target);
    if (!current || this.epochs.at(current.to_s)) return;
    this.epochs.add({ symbol: c.symbol, from_s: current.to_s, to_s: current.to_s + HOUR_S, seed: this.seeds(c.symbol, current.to_s), start_e8: null, prev_from_s: current.from_s, params: simParams(c.tick_size_e8), committed_at_ms: now });
  }

  /** A day of minute candles on first start, so charts and the 24h block have history. */
  backfill(c: HubConfig, now: number) {
    const feed = SimulatedFeed.start(c.symbol, c.start_price_e8, now - DAY_MS - MINUTE_MS, c.tick_size_e8, this.random);
    let candle: Candle | null = null;
    for (let t = now - DAY_MS; t < now - MINUTE_MS; t += BACKFILL_STEP_MS) {
      const next = foldTick(candle, feed.next(t));
      if (candle && next.t_ms !== candle.t_ms) this.store.saveCandle(candle);
      candle = next;
    }
    if (candle) this.store.saveCandle(candle);
    this.store.setMeta("walk", { price_e8: feed.snapshot.price_e8, s: Math.floor(now / TICK_MS) - 1 } satisfies WalkState);
  }
}
