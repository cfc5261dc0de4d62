/**
 * A symbol's price line as a Durable Object: the part of its QuoteHub that pages and charts use.
 * The product it serves (remembered in its own storage), the feed (the simulation, or the
 * exchange's stream that the beat keeps open), its ticks and candles, the 24h quote, and the
 * pages' quote sockets up to the cap. QuoteHub (quote-hub.ts) adds orders and settlement.
 */
import { socketRefusal } from "../page-socket-api";
import { PageSocketObject } from "../page-socket-object";
import { openPage } from "../page-sockets";
import type { Env } from "../../worker/env";
import { feedKind } from "../../worker/mode";
import { logError } from "../../worker/observability/log";
import { recordMetric } from "../../worker/observability/metrics";
import { feedKey, simRandom, simSeeds } from "./feed";
import type { HubConfig, HubHealth, HubQuote } from "./hub-api";
import { Prices } from "./prices";
import { quoteSocketCap } from "./sockets";
import { openUpstream, UpstreamFeed } from "./upstream";

export abstract class PriceLineObject extends PageSocketObject {
  protected config: HubConfig | null = null;
  private started = false;
  protected readonly prices = new Prices(this.ctx.storage.sql, simRandom(this.env), simSeeds(this.env), () => this.ctx.getWebSockets(), () => ({ config: this.config, simulated: this.simulated }));
  protected readonly upstream = new UpstreamFeed({ open: openUpstream, now: () => Date.now(), later: (fn, ms) => void setTimeout(fn, ms), random: Math.random, onTick: (t) => this.prices.ingest(t), log: (event, fields) => logError(event, fields) });

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      this.prices.store.init();
      this.config = this.prices.store.meta<HubConfig>("config");
    });
  }

  /** Read at each use: tests switch a hub to the exchange feed by replacing its env. */
  protected get simulated(): boolean {
    return feedKind(this.env) === "simulation";
  }

  /** The feed the ticks come from, as orders and metric points name it. */
  protected feedName(): string {
    return this.simulated ? "simulation" : `binance:${feedKey(this.config!.feed_symbol)}`;
  }

  async ensure(config: HubConfig): Promise<void> {
    if (this.started && this.config?.symbol === config.symbol) return;
    if (!this.config || this.config.symbol !== config.symbol) this.remember(config);
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + 10);
    this.prices.start(Date.now());
    this.started = true;
  }

  async reload(config: HubConfig): Promise<void> {
    this.remember(config);
    await this.ensure(config);
  }

  private remember(config: HubConfig) {
    this.config = config;
    this.prices.store.setMeta("config", config);
  }

  async latest() {
    return this.prices.latest(Date.now());
  }

  async quote(): Promise<HubQuote | null> {
    return this.prices.quote();
  }

  /** The quote block a page hears on connect (relays ask it for theirs). */
  async greeting() {
    return this.prices.greeting();
  }

  async candles(interval_ms: number, limit: number) {
    return this.prices.store.candles(interval_ms, limit);
  }

  async ticks(from_ms: number, to_ms: number) {
    return this.prices.store.ticks(from_ms, to_ms);
  }

  /**
   * The feed's side of the hub's health: the latest tick's time and the open sockets against the
   * cap. The simulation has a price whenever asked (an order gets the same fresh tick); an
   * exchange feed only has what its upstream delivered.
   */
  protected async feedHealth(): Promise<Pick<HubHealth, "feed" | "latest_tick_ms" | "sockets" | "socket_cap">> {
    const latest = this.simulated ? await this.latest() : this.prices.store.latest();
    return { feed: feedKind(this.env), latest_tick_ms: latest?.ts_ms ?? null, sockets: this.ctx.getWebSockets().length, socket_cap: quoteSocketCap(this.env) };
  }

  /**
   * The feed's minute point: how old the latest tick is (a stalled feed grows it) and how many
   * sockets this hub holds (pages, or relays when QUOTE_RELAYS spreads the pages over them).
   */
  protected reportFeed(now_ms: number) {
    if (!this.config) return;
    const latest = this.prices.store.latest();
    recordMetric(this.env.METRICS, "feed", { symbol: this.config.symbol, feed: this.feedName(), age_ms: latest ? now_ms - latest.ts_ms : -1, sockets: this.ctx.getWebSockets().length });
  }

  /**
   * A page's quote socket. Past the cap the upgrade is refused with 503 and the envelope, and
   * the sockets already open keep their ticks: one object that takes more sockets than it can
   * feed would fail all of them (decision 088).
   */
  async fetch(request: Request): Promise<Response> {
    if (this.ctx.getWebSockets().length >= quoteSocketCap(this.env)) return socketRefusal(request, 503, "errors.quotes_busy", { "retry-after": "5" });
    return openPage(this.ctx, request, Date.now(), () => this.prices.greeting());
  }
}
