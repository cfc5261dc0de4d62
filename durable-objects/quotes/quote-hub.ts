import { DurableObject } from "cloudflare:workers";
import { getDb } from "../../worker/db/client";
import { invocationDb, peakQueries } from "../../worker/db/limits";
import { worstCase } from "../../worker/domain/trades/exposure";
import type { PlaceOrder, PlaceResult } from "../../worker/domain/trades/orders";
import type { Tick } from "../../worker/domain/trades/settlement";
import type { Env } from "../../worker/env";
import { answerPage, closeBack, openPage } from "../page-sockets";
import { DAY_MS, MINUTE_MS, quoteBlock, type Candle } from "./candles";
import { ExposureLog } from "./exposure-log";
import { simRandom, type FeedTick } from "./feed";
import type { ExposureView, HubConfig, HubQuote, QuoteHubApi } from "./hub-api";
import { notifyOwner } from "./notify";
import { d1Market, OrderIntake } from "./order-intake";
import { d1DueOrders, settleDue, type SettlementDeps, type SettleRun } from "./settlement-loop";
import { Simulation, TICK_MS } from "./simulation";
import { QuoteFanout, quoteMessage } from "./sockets";
import { TickStore } from "./tick-store";
import { openUpstream, UpstreamFeed } from "./upstream";

export type { HubConfig } from "./hub-api";

/**
 * One per symbol: the price feed's ticks and 1-minute candles (in this object's own SQLite
 * storage), the 24h quote, fan-out to every open page over hibernating WebSockets, order
 * placement, and the settlement of the symbol's due orders. This class only wires the parts
 * together; each part is a module of this folder.
 */
export class QuoteHub extends DurableObject<Env> implements QuoteHubApi {
  private config: HubConfig | null = null;
  private started = false;
  private readonly store = new TickStore(this.ctx.storage.sql);
  private readonly exposureLog = new ExposureLog(this.ctx.storage.sql);
  private readonly sim = new Simulation(this.store, simRandom(this.env));
  private readonly fanout = new QuoteFanout(() => this.ctx.getWebSockets(), () => this.quote());
  private readonly intake = new OrderIntake({ market: d1Market(() => this.db()), symbol: () => this.config!.symbol, now: () => Date.now() });
  private readonly upstream = new UpstreamFeed({ open: openUpstream, now: () => Date.now(), later: (fn, ms) => void setTimeout(fn, ms), random: Math.random, onTick: (t) => this.ingest(t), log: (...parts) => console.error(...parts) });
  private readonly settlement: SettlementDeps = {
    ticks: (from_ms, to_ms) => this.store.ticks(from_ms, to_ms),
    latest: () => this.store.latest(),
    track: (write) => this.intake.track(write),
    release: (settled) => this.intake.release(settled),
    notify: (user_id, outcomes) => notifyOwner((id) => this.env.USER_CHANNEL.get(this.env.USER_CHANNEL.idFromName(String(id))), user_id, outcomes),
    keepBeat: () => this.keepBeat(),
  };

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      this.store.init();
      this.exposureLog.init();
      this.config = this.store.meta<HubConfig>("config");
    });
  }

  /** Read at each use: tests switch a hub to the exchange feed by replacing its env. */
  private get simulated(): boolean {
    return (this.env.PRICE_FEED ?? "simulation") !== "binance";
  }

  /** A counted view of D1 per use (worker/db/limits.ts). */
  private db() {
    return getDb(invocationDb(this.env));
  }

  async ensure(config: HubConfig): Promise<void> {
    if (this.started && this.config?.symbol === config.symbol) return;
    if (!this.config || this.config.symbol !== config.symbol) this.remember(config);
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + 10);
    if (this.store.latest() === null && this.simulated) this.sim.backfill(this.config!, Date.now());
    this.started = true;
  }

  async reload(config: HubConfig): Promise<void> {
    this.remember(config);
    this.intake.forgetProduct();
    await this.ensure(config);
  }

  private remember(config: HubConfig) {
    this.config = config;
    this.store.setMeta("config", config);
  }

  async place(config: HubConfig, input: PlaceOrder): Promise<PlaceResult> {
    await this.ensure(config);
    return this.intake.place(input, () => this.latest());
  }

  /** The latest tick, made fresh first when the simulation has been idle. */
  async latest(): Promise<Tick | null> {
    const now = Date.now();
    const last = this.store.latest();
    if (this.simulated && this.config && (!last || now - last.ts_ms >= TICK_MS)) return this.ingest(this.sim.next(this.config, now));
    return last;
  }

  async quote(): Promise<HubQuote | null> {
    const last = await this.latest();
    if (!last) return null;
    const candles = this.store.minutesSince(last.ts_ms - DAY_MS - MINUTE_MS);
    return { ...quoteBlock(candles, { ...last, symbol: this.config?.symbol ?? "", volume_e8: 0 }), simulated: this.simulated };
  }

  async candles(interval_ms: number, limit: number): Promise<Candle[]> {
    return this.store.candles(interval_ms, limit);
  }

  async ticks(from_ms: number, to_ms: number): Promise<Tick[]> {
    return this.store.ticks(from_ms, to_ms);
  }

  /** A bounded share of what is due; the beat goes on at once for the rest. */
  async settleDue(): Promise<{ settled: number; already: number }> {
    const r = await this.settle(Date.now());
    if (r.more) await this.ctx.storage.setAlarm(Date.now());
    return { settled: r.settled, already: r.already };
  }

  async exposure(since_ms: number): Promise<ExposureView> {
    const product = await this.intake.currentProduct();
    const e = this.intake.openExposure();
    return { up: e.up, down: e.down, worst_case_micro: worstCase(e), limit_micro: product?.exposure_limit_micro ?? 0, history: this.exposureLog.since(since_ms) };
  }

  async stats(): Promise<{ peak_queries: number }> {
    return { peak_queries: peakQueries() };
  }

  /** The beat: this second's tick, the feed kept open, due orders settled, exposure logged. */
  async alarm(): Promise<void> {
    const now = Date.now();
    let more = false;
    try {
      if (this.config) {
        this.keepBeat();
        if (!this.simulated) this.upstream.keep(this.env, this.config.feed_symbol);
        await this.intake.currentProduct();
        more = (await this.settle(now)).more;
        if (this.intake.loaded) this.exposureLog.record(Date.now(), this.intake.openExposure());
        if (now % 60_000 < TICK_MS) this.prune(now);
      }
    } finally {
      // More due orders: go on at once, in a new invocation with its own D1 budget. Otherwise
      // on the next whole second, always: charts stay live and due orders never wait long.
      const next = Date.now();
      await this.ctx.storage.setAlarm(more ? next : next + TICK_MS - (next % TICK_MS) || TICK_MS);
    }
  }

  private async settle(now: number): Promise<SettleRun> {
    if (!this.config) return { settled: 0, already: 0, more: false };
    return settleDue(this.settlement, d1DueOrders(this.db()), this.config.symbol, now);
  }

  private prune(now: number) {
    this.store.prune(now);
    this.exposureLog.prune(now);
  }

  /** The simulated feed's tick for a second that passed while this object was busy. */
  private keepBeat() {
    const now = Date.now();
    if (this.simulated && this.config && this.sim.due(now)) this.ingest(this.sim.next(this.config, now));
  }

  /** Stores a tick and sends it to every open page. */
  private ingest(tick: FeedTick): Tick {
    const r = this.store.append(tick);
    if (!r.added) return r.tick;
    this.sim.persist();
    this.fanout.tick(this.config?.symbol ?? tick.symbol, tick);
    return r.tick;
  }

  async fetch(request: Request): Promise<Response> {
    return openPage(this.ctx, request, Date.now(), async () => {
      const q = await this.quote();
      return q && this.config ? quoteMessage(this.config.symbol, q) : null;
    });
  }

  async webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer) {
    answerPage(ws, raw, Date.now());
  }

  async webSocketClose(ws: WebSocket, code: number) {
    closeBack(ws, code);
  }

  async webSocketError(ws: WebSocket) {
    ws.close(1011, "error");
  }
}
