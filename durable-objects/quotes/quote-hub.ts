/**
 * One per symbol: its price line (price-line-object.ts: the feed, ticks and candles in this
 * object's own SQLite storage, the 24h quote, fan-out to every open page over hibernating
 * WebSockets), order placement, and the settlement of the symbol's due orders. This class only
 * wires the parts (the modules of this folder) together; what each call does is documented in
 * hub-api.ts.
 */
import { getDb } from "../../worker/db/client";
import { invocationDb, peakQueries } from "../../worker/db/limits";
import type { PlaceOrder, PlaceResult } from "../../worker/domain/trades/order-check";
import type { Env } from "../../worker/env";
import { feedKind, walletOf } from "../../worker/mode";
import { asInvocation, logError, underRequest } from "../../worker/observability/log";
import { recordMetric } from "../../worker/observability/metrics";
import { d1Entries, PendingEntries } from "./entries";
import { ExposureLog } from "./exposure-log";
import type { ExposureView, HubConfig, HubHealth, HubStats, PlaceAsResult, QuoteHubApi } from "./hub-api";
import { LogPokes } from "./log-pokes";
import { d1Market, OrderIntake } from "./order-intake";
import { OrderRates } from "./order-rates";
import { PriceLineObject } from "./price-line-object";
import { d1Sessions, SessionCache } from "./session-cache";
import { settleRound } from "./settle-round";
import type { SettleRun } from "./settlement-loop";
import { logSimRows } from "./sim-log";
import { TICK_MS } from "./simulation";

export type { HubConfig } from "./hub-api";

export class QuoteHub extends PriceLineObject implements QuoteHubApi {
  private readonly exposureLog = new ExposureLog(this.ctx.storage.sql);
  private readonly logPokes = new LogPokes(() => this.env, (work) => this.ctx.waitUntil(work));
  private readonly intake = new OrderIntake({
    market: d1Market(() => this.db(), () => this.logSim(), () => this.logPokes.soon()),
    symbol: () => this.config!.symbol,
    now: () => Date.now(),
    feed: () => this.feedName(),
    wallet: () => walletOf(this.env),
    onWritten: (orders) => this.entries.add(orders.map((o) => ({ id: o.id, user_id: o.user_id, accepted_at_ms: o.created_at_ms }))),
    onGroup: (orders, write_ms) => recordMetric(this.env.METRICS, "order_group", { symbol: this.config!.symbol, orders, write_ms }),
  });
  /** How fast each session and network may place orders here (decision 124). */
  private readonly rates = new OrderRates();
  /** Orders waiting for their entry, the first tick after acceptance (decision 123). */
  private readonly entries = new PendingEntries(d1Entries(() => this.db(), () => this.config?.symbol ?? null, (after_ms, until_ms) => this.prices.store.firstAfter(after_ms, until_ms)));
  /** The sessions orders are placed under (decision 106): no D1 read per order. */
  private readonly sessions = new SessionCache({ source: d1Sessions(() => this.db()), now: () => Date.now(), background: (work) => this.ctx.waitUntil(work) });

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => this.exposureLog.init());
  }

  /** Each use of D1 gets its own counted view (worker/db/limits.ts). */
  private db() {
    return getDb(invocationDb(this.env));
  }

  async reload(config: HubConfig): Promise<void> {
    this.intake.forgetProduct();
    await super.reload(config);
  }

  async place(config: HubConfig, input: PlaceOrder): Promise<PlaceResult> {
    await this.ensure(config);
    return this.intake.place(input, () => this.latest());
  }

  async placeAs(config: HubConfig, token_hash: string, input: Omit<PlaceOrder, "user_id">, network: string | null = null, request_id?: string): Promise<PlaceAsResult> {
    // The API request's id reaches the hub by hand (an RPC has no async context): its lines carry it.
    return underRequest(request_id, "QuoteHub.placeAs", async () => {
      const rate = this.rates.take(token_hash, network, Date.now());
      if (!rate.ok) return { status: "too_fast", retry_after_ms: rate.retry_after_ms };
      const user_id = await this.sessions.userOf(token_hash);
      if (user_id === null) return { status: "unauthorized" };
      return { status: "placed", user_id, result: await this.place(config, { ...input, user_id }) };
    });
  }

  async forgetSessions(which: { token_hash?: string; user_id?: number }): Promise<void> {
    this.sessions.forget(which);
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
    return { ...(await this.feedHealth()), order_groups: w.groups, orders_grouped: w.orders, order_write_ms: w.write_ms };
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
   * The simulation's new commitments and revealed seeds into the log's inbox. Orders wait for it
   * (d1Market's `before`), so an hour's commitment is always queued ahead of the first order
   * placed on its ticks; the beat writes it within a second otherwise.
   */
  private async logSim(): Promise<void> {
    if (await logSimRows(this.prices, this.db(), Date.now())) this.logPokes.soon();
  }

  private async settle(now: number): Promise<SettleRun> {
    if (!this.config) return { settled: 0, already: 0, more: false, oldest_delivery_at_ms: null };
    const hub = { env: this.env, symbol: this.config.symbol, db: this.db(), ticks: this.prices.store, exposure: this.intake, keepBeat: () => this.prices.keepBeat(Date.now()) };
    const log = { pokeLog: () => this.logPokes.soon(), onBurst: () => this.logPokes.holdForBurst(), burstSettled: () => this.logPokes.burstSettled() };
    return settleRound({ ...hub, ...log, background: (work) => this.ctx.waitUntil(work) }, now);
  }
}
