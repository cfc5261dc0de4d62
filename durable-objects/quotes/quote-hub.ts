import { PageSocketObject } from "../page-socket-object";
import { getDb } from "../../worker/db/client";
import { invocationDb, peakQueries } from "../../worker/db/limits";
import type { PlaceOrder, PlaceResult } from "../../worker/domain/trades/order-check";
import type { Env } from "../../worker/env";
import { socketRefusal } from "../page-socket-api";
import { openPage } from "../page-sockets";
import { ExposureLog } from "./exposure-log";
import { feedKey, simRandom, simSeeds } from "./feed";
import type { ExposureView, HubConfig, HubHealth, HubQuote, HubStats, PlaceAsResult, QuoteHubApi } from "./hub-api";
import { SessionCache } from "./session-cache";
import { PendingEntries } from "./entries";
import { OrderRates } from "./order-rates";
import { feedKind, walletOf } from "../../worker/mode";
import { ordersAwaitingEntry, writeEntries } from "../../worker/domain/trades/entry-writes";
import { resolveSessionHash, touchLiveSessions } from "../../worker/domain/identity/session";
import { pushNotices } from "../../worker/notices";
import { userChannel } from "../user-channel/channel-api";
import { notifyOwner, type Outcome } from "./notify";
import { d1Market, OrderIntake } from "./order-intake";
import { Prices } from "./prices";
import { d1DueOrders, settleDue, type SettleRun } from "./settlement-loop";
import { pokeLog } from "../transparency/log-api";
import { TICK_MS } from "./simulation";
import { writeSimLog } from "./sim-log";
import { openUpstream, UpstreamFeed } from "./upstream";
import { logError, underRequest, asInvocation } from "../../worker/observability/log";
import { recordMetric } from "../../worker/observability/metrics";

export type { HubConfig } from "./hub-api";

/**
 * One per symbol: the price feed's ticks and 1-minute candles (in this object's own SQLite
 * storage), the 24h quote, fan-out to every open page over hibernating WebSockets, order
 * placement, and the settlement of the symbol's due orders. This class only wires the parts
 * (the modules of this folder) together; what each call does is documented in hub-api.ts.
 */
/**
 * Quote sockets one hub accepts. Cloudflare lets one Durable Object hold 32,768 WebSockets;
 * the cap stays below, so the object refuses before the platform does (QUOTE_SOCKETS_MAX
 * lowers it, for tests).
 */
export const QUOTE_SOCKETS_MAX = 30_000;

export function quoteSocketCap(env: Pick<Env, "QUOTE_SOCKETS_MAX">): number {
  const configured = Number(env.QUOTE_SOCKETS_MAX);
  return Number.isSafeInteger(configured) && configured > 0 ? Math.min(configured, QUOTE_SOCKETS_MAX) : QUOTE_SOCKETS_MAX;
}

/** A write that queued log leaves wakes the log at most this much later (see pokeLogSoon). */
const LOG_POKE_MS = 100;

export class QuoteHub extends PageSocketObject implements QuoteHubApi {
  private config: HubConfig | null = null;
  private started = false;
  private readonly prices = new Prices(this.ctx.storage.sql, simRandom(this.env), simSeeds(this.env), () => this.ctx.getWebSockets(), () => ({ config: this.config, simulated: this.simulated }));
  private readonly exposureLog = new ExposureLog(this.ctx.storage.sql);
  /** Each use of D1 gets its own counted view (worker/db/limits.ts). */
  private readonly intake = new OrderIntake({
    market: d1Market(() => getDb(invocationDb(this.env)), () => this.logSim(), () => this.pokeLogSoon()),
    symbol: () => this.config!.symbol,
    now: () => Date.now(),
    feed: () => (this.simulated ? "simulation" : `binance:${feedKey(this.config!.feed_symbol)}`),
    wallet: () => walletOf(this.env),
    onWritten: (orders) => this.entries.add(orders.map((o) => ({ id: o.id, user_id: o.user_id, accepted_at_ms: o.created_at_ms }))),
    onGroup: (orders, write_ms) => recordMetric(this.env.METRICS, "order_group", { symbol: this.config!.symbol, orders, write_ms }),
  });
  /** How fast each session and network may place orders here (decision 124). */
  private readonly rates = new OrderRates();
  /** Orders waiting for their entry, the first tick after acceptance (decision 123). */
  private readonly entries = new PendingEntries({
    firstTickAfter: (after_ms, until_ms) => this.prices.store.firstAfter(after_ms, until_ms),
    write: (entries) => writeEntries(getDb(invocationDb(this.env)), entries),
    waiting: () => (this.config ? ordersAwaitingEntry(getDb(invocationDb(this.env)), this.config.symbol) : Promise.resolve([])),
  });
  /** The sessions orders are placed under (decision 106): no D1 read per order. */
  private readonly sessions = new SessionCache({
    source: {
      read: (token_hash, now_ms) => resolveSessionHash(getDb(invocationDb(this.env)), "user", token_hash, now_ms),
      recheck: (token_hashes, now_ms) => touchLiveSessions(getDb(invocationDb(this.env)), "user", token_hashes, now_ms),
    },
    now: () => Date.now(),
    background: (work) => this.ctx.waitUntil(work),
  });
  private readonly upstream = new UpstreamFeed({ open: openUpstream, now: () => Date.now(), later: (fn, ms) => void setTimeout(fn, ms), random: Math.random, onTick: (t) => this.prices.ingest(t), log: (event, fields) => logError(event, fields) });

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      this.prices.store.init();
      this.exposureLog.init();
      this.config = this.prices.store.meta<HubConfig>("config");
    });
  }

  /** Read at each use: tests switch a hub to the exchange feed by replacing its env. */
  private get simulated(): boolean {
    return feedKind(this.env) === "simulation";
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
    this.intake.forgetProduct();
    await this.ensure(config);
  }

  private remember(config: HubConfig) {
    this.config = config;
    this.prices.store.setMeta("config", config);
  }

  async place(config: HubConfig, input: PlaceOrder): Promise<PlaceResult> {
    await this.ensure(config);
    return this.intake.place(input, () => this.latest());
  }

  async placeAs(config: HubConfig, token_hash: string, input: Omit<PlaceOrder, "user_id">, network: string | null = null, request_id?: string): Promise<PlaceAsResult> {
    // The API request's id reaches the hub by hand (an RPC has no async context): its lines carry it.
    return underRequest(request_id, "QuoteHub.placeAs", () => this.placeFor(config, token_hash, input, network));
  }

  private async placeFor(config: HubConfig, token_hash: string, input: Omit<PlaceOrder, "user_id">, network: string | null): Promise<PlaceAsResult> {
    const rate = this.rates.take(token_hash, network, Date.now());
    if (!rate.ok) return { status: "too_fast", retry_after_ms: rate.retry_after_ms };
    const user_id = await this.sessions.userOf(token_hash);
    if (user_id === null) return { status: "unauthorized" };
    return { status: "placed", user_id, result: await this.place(config, { ...input, user_id }) };
  }

  async forgetSessions(which: { token_hash?: string; user_id?: number }): Promise<void> {
    this.sessions.forget(which);
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

  async settleDue(): Promise<{ settled: number; already: number }> {
    const r = await this.settle(Date.now());
    if (r.more) await this.ctx.storage.setAlarm(Date.now());
    return { settled: r.settled, already: r.already };
  }

  async exposure(since_ms: number): Promise<ExposureView> {
    return { ...(await this.intake.view()), history: this.exposureLog.since(since_ms) };
  }

  async stats(): Promise<HubStats> {
    return { peak_queries: peakQueries(), order_groups: this.intake.written.groups, orders_grouped: this.intake.written.orders, order_write_ms: this.intake.written.write_ms };
  }

  async health(): Promise<HubHealth> {
    const w = this.intake.written;
    // The simulation has a price whenever asked (an order gets the same fresh tick); an
    // exchange feed only has what its upstream delivered.
    const latest = this.simulated ? await this.latest() : this.prices.store.latest();
    return {
      feed: feedKind(this.env),
      latest_tick_ms: latest?.ts_ms ?? null,
      sockets: this.ctx.getWebSockets().length,
      socket_cap: quoteSocketCap(this.env),
      order_groups: w.groups,
      orders_grouped: w.orders,
      order_write_ms: w.write_ms,
    };
  }

  /** The beat: this second's tick, the feed kept open, due orders settled, exposure logged. */
  async alarm(): Promise<void> {
    return asInvocation("alarm:quote-hub", () => this.onAlarm());
  }

  /** The alarm's work, under an invocation id of its own (its log lines carry it). */
  private async onAlarm(): Promise<void> {
    const now = Date.now();
    let more = false;
    try {
      if (this.config) {
        this.prices.keepBeat(now);
        if (feedKind(this.env) === "exchange") this.upstream.keep(this.env, this.config.feed_symbol);
        await this.intake.currentProduct();
        await this.entries.flush(Date.now()).catch((err) => logError("order.entries_failed", { symbol: this.config?.symbol, err }));
        more = (await this.settle(now)).more;
        if (this.intake.loaded) this.exposureLog.record(Date.now(), this.intake.openExposure());
        await this.logSim();
        if (now % 60_000 < TICK_MS) {
          this.reportFeed(now);
          this.prices.prune(now);
          this.exposureLog.prune(now);
        }
      }
    } finally {
      // More due orders: go on at once, in a new invocation with its own D1 budget. Otherwise
      // on the next whole second, always: charts stay live and due orders never wait long.
      const next = Date.now();
      await this.ctx.storage.setAlarm(more ? next : next + TICK_MS - (next % TICK_MS) || TICK_MS);
    }
  }

  /**
   * The feed's minute point: how old the latest tick is (a stalled feed grows it) and how many
   * sockets this hub holds (pages, or relays when QUOTE_RELAYS spreads the pages over them).
   */
  private reportFeed(now_ms: number) {
    if (!this.config) return;
    const latest = this.prices.store.latest();
    const feed = this.simulated ? "simulation" : `binance:${feedKey(this.config.feed_symbol)}`;
    recordMetric(this.env.METRICS, "feed", { symbol: this.config.symbol, feed, age_ms: latest ? now_ms - latest.ts_ms : -1, sockets: this.ctx.getWebSockets().length });
  }

  private logPokePending = false;

  /**
   * Wakes the transparency log within LOG_POKE_MS of a write that queued leaves (orders,
   * settlements, the simulation's commitments): every such write is followed by a poke, and the
   * writes of those milliseconds share it (each poke is a call and a storage write in the
   * sequencer; under load a hub writes dozens of groups a second).
   */
  private pokeLogSoon() {
    if (this.logPokePending) return;
    this.logPokePending = true;
    this.ctx.waitUntil(
      new Promise((later) => setTimeout(later, LOG_POKE_MS)).then(() => {
        this.logPokePending = false;
        return pokeLog(this.env);
      }),
    );
  }

  /**
   * Writes the simulation's new commitments and revealed seeds to the log's inbox. Orders wait
   * for it (d1Market's `before`), so an hour's commitment is always queued ahead of the first
   * order placed on its ticks; the beat writes it within a second otherwise.
   */
  private async logSim(): Promise<void> {
    const rows = this.prices.simUnlogged(Date.now());
    if (rows.length === 0) return;
    await writeSimLog(getDb(invocationDb(this.env)), rows);
    this.prices.simLogged(rows);
    this.pokeLogSoon();
  }

  private async settle(now: number): Promise<SettleRun> {
    if (!this.config) return { settled: 0, already: 0, more: false, oldest_delivery_at_ms: null };
    const channel = (user_id: number) => userChannel(this.env, user_id);
    // The owners told of this run: their `orders_settled` notices (written at `now`) go to their devices after.
    const owners = new Set<number>();
    const notify = (user_id: number, outcomes: Outcome[]) => (owners.add(user_id), notifyOwner(channel, user_id, outcomes));
    const deps = { ticks: this.prices.store, exposure: this.intake, notify, keepBeat: () => this.prices.keepBeat(Date.now()) };
    const db = getDb(invocationDb(this.env));
    const run = await settleDue(deps, d1DueOrders(db), this.config.symbol, now);
    // The round's point: how many orders, and how long after its delivery the oldest was settled.
    if (run.settled > 0) recordMetric(this.env.METRICS, "settlement", { symbol: this.config.symbol, orders: run.settled, lag_ms: Date.now() - (run.oldest_delivery_at_ms ?? now) });
    if (owners.size > 0) this.ctx.waitUntil(pushNotices(this.env, db, [...owners], now));
    // Settled orders and their transfers are now in the log's inbox.
    if (run.settled > 0) this.pokeLogSoon();
    return run;
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
