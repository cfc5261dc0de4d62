/**
 * The simulated feed inside a hub: the walk resumes where it stood after a restart (only its
 * position is stored, never what comes next), a first start gets a day of candles so charts
 * have history, and a second that passed gets its tick.
 */
import { DAY_MS, foldTick, MINUTE_MS, type Candle } from "./candles";
import { simOptions, SimulatedFeed, type FeedTick, type RandomSource, type SimState } from "./feed";
import type { HubConfig } from "./hub-api";
import type { TickStore } from "./tick-store";

/** A tick a second; settlement looks for due orders on the same beat. */
export const TICK_MS = 1000;
/** The backfilled day has a tick every 15 s: enough for candles, cheap on first start. */
const BACKFILL_STEP_MS = 15_000;

export class Simulation {
  private walk: SimulatedFeed | null = null;

  constructor(
    private readonly store: TickStore,
    private readonly random: RandomSource,
  ) {}

  /** The walk's tick at `now`. */
  next(c: HubConfig, now: number): FeedTick {
    if (!this.walk) {
      const state = this.store.meta<SimState>("sim");
      // The saved state is only where the walk stands; every step ahead is freshly random.
      this.walk = state ? new SimulatedFeed(c.symbol, state, simOptions(c.tick_size_e8), this.random) : SimulatedFeed.start(c.symbol, c.start_price_e8, now - TICK_MS, c.tick_size_e8, this.random);
    }
    return this.walk.next(now);
  }

  /** Is a tick due at `now` (none yet, or the latest is from an earlier second)? */
  due(now: number): boolean {
    const last = this.store.latest();
    return !last || Math.floor(now / TICK_MS) > Math.floor(last.ts_ms / TICK_MS);
  }

  /** Saves where the walk stands, once its tick is stored. */
  persist() {
    if (this.walk) this.store.setMeta("sim", this.walk.snapshot);
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
    this.walk = new SimulatedFeed(c.symbol, { ...feed.snapshot, last_ts_ms: now - MINUTE_MS }, simOptions(c.tick_size_e8), this.random);
    this.persist();
  }
}
