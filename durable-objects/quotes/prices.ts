/**
 * A hub's price line: ticks come in (from the simulation or the exchange), are stored with
 * their candles and sent to every open page; the latest price and the 24h quote are read here.
 */
import type { Tick } from "../../worker/domain/trades/settlement";
import type { PageSocket } from "../page-sockets";
import type { ServerMessage } from "../protocol";
import { DAY_MS, MINUTE_MS, quoteBlock } from "./candles";
import type { FeedTick, RandomSource } from "./feed";
import type { HubConfig, HubQuote } from "./hub-api";
import type { SimLogRow } from "./sim-epochs";
import { Simulation, TICK_MS, type SeedSource } from "./simulation";
import { QuoteFanout, quoteMessage } from "./sockets";
import type { Sql } from "./sql";
import { TickStore } from "./tick-store";

/** What the hub runs now: its product (none before the first `ensure`) and which feed. */
export type FeedState = { config: HubConfig | null; simulated: boolean };

export class Prices {
  readonly store: TickStore;
  private readonly sim: Simulation;
  private readonly fanout: QuoteFanout;

  constructor(
    sql: Sql,
    random: RandomSource,
    seeds: SeedSource,
    sockets: () => Iterable<PageSocket>,
    private readonly feed: () => FeedState,
  ) {
    this.store = new TickStore(sql);
    this.sim = new Simulation(this.store, random, seeds);
    this.fanout = new QuoteFanout(sockets, () => this.quote());
  }

  /** A simulated market's first start gets a day of history. */
  start(now: number) {
    const { config, simulated } = this.feed();
    if (config && simulated && this.store.latest() === null) this.sim.backfill(config, now);
  }

  /** The latest tick, made fresh first when the simulation has been idle. */
  latest(now: number): Tick | null {
    const { config, simulated } = this.feed();
    const last = this.store.latest();
    if (simulated && config && (!last || now - last.ts_ms >= TICK_MS)) return this.ingest(this.sim.next(config, now));
    return last;
  }

  /** The simulated feed's tick for a second that passed while the hub was busy. */
  keepBeat(now: number) {
    const { config, simulated } = this.feed();
    if (simulated && config && this.sim.due(now)) this.ingest(this.sim.next(config, now));
  }

  async quote(now = Date.now()): Promise<HubQuote | null> {
    const last = this.latest(now);
    if (!last) return null;
    const candles = this.store.minutesSince(last.ts_ms - DAY_MS - MINUTE_MS);
    const { config, simulated } = this.feed();
    return { ...quoteBlock(candles, { ...last, symbol: config?.symbol ?? "", volume_e8: 0 }), simulated };
  }

  /** The quote block a page hears when it connects. */
  async greeting(): Promise<ServerMessage | null> {
    const q = await this.quote();
    const { config } = this.feed();
    return q && config ? quoteMessage(config.symbol, q) : null;
  }

  /** The simulation's commitments and seeds the log's inbox does not hold yet. */
  simUnlogged(now: number): SimLogRow[] {
    return this.sim.unlogged(now);
  }

  simLogged(rows: SimLogRow[]) {
    this.sim.epochs.logged(rows);
  }

  prune(now: number) {
    this.store.prune(now);
    this.sim.prune(now);
  }

  /** Stores a tick and sends it to every open page; answers the latest tick. */
  ingest(tick: FeedTick): Tick {
    const r = this.store.append(tick);
    if (!r.added) return r.tick;
    this.fanout.tick(this.feed().config?.symbol ?? tick.symbol, tick);
    return r.tick;
  }
}
