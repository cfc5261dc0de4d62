import { DurableObject } from "cloudflare:workers";
import { getDb, type Db } from "../../worker/db/client";
import { invocationDb, peakQueries } from "../../worker/db/limits";
import { admits, combine, NO_EXPOSURE, withOrder, worstCase, type Exposure, type ExposureOrder } from "../../worker/domain/trades/exposure";
import { checkOrder, decide, dueOrders, loadMarket, replayOf, writeOrders, writeSettlements, type CheckedOrder, type Order, type PlaceOrder, type PlaceResult, type ProductWithDurations } from "../../worker/domain/trades/orders";
import { formatPriceE8, type Tick } from "../../worker/domain/trades/settlement";
import type { Env } from "../../worker/env";
import { encode, parseClientMessage, type ServerMessage } from "../protocol";
import { DAY_MS, foldTick, MINUTE_MS, quoteBlock, resample, type Candle, type QuoteBlock } from "./candles";
import { binanceStreamUrl, feedUrlAllowed, simOptions, SimulatedFeed, simRandom, upstreamTick, type FeedTick, type RandomSource, type SimState } from "./feed";

export type HubConfig = { symbol: string; feed_symbol: string; start_price_e8: number; tick_size_e8: number };

/** A tick a second; settlement looks for due orders on the same beat. */
export const TICK_MS = 1000;
/** Ticks are kept 6 hours (settlement audit), minute candles 8 days (charts). */
const TICK_RETENTION_MS = 6 * 3600_000;
const CANDLE_RETENTION_MS = 8 * DAY_MS;
/** A delivery is settled once a tick at or after it exists, or this long after it regardless. */
const SETTLE_WAIT_MS = 5_000;
/** The product's rules are re-read at least this often (a console save also reloads them at once). */
const PRODUCT_FRESH_MS = 5_000;
/** Due orders settled per database batch (five set-based statements, whatever the count). */
const SETTLE_CHUNK = 500;
/**
 * Due orders settled per alarm (or sweep call) at most; more due re-arms the alarm at once.
 * Each chunk costs at most 1 read + 5 statements + a retry (1 + 5): far below D1's 1,000
 * queries per invocation, and the beat's alarm stays short.
 */
const SETTLE_PER_INVOCATION = 2 * SETTLE_CHUNK;
/** Exposure snapshots: one at least every 10 s, and one whenever it changed; kept a day. */
const EXPOSURE_EVERY_MS = 10_000;
const EXPOSURE_RETENTION_MS = DAY_MS;
/** At most this many orders in one group-commit batch (5 statements each). */
const ORDER_GROUP_MAX = 25;

/**
 * One per symbol: the price feed's ticks and 1-minute candles (in this object's own SQLite
 * storage), the 24h quote, fan-out to every open page over hibernating WebSockets, and the
 * settlement of the symbol's due orders (alarms are at-least-once; settlement is exactly-once
 * through the D1 transition guard).
 */
export class QuoteHub extends DurableObject<Env> {
  private config: HubConfig | null = null;
  private sim: SimulatedFeed | null = null;
  private upstream: WebSocket | null = null;
  /** The feed symbol the open upstream streams; another one means reconnect. */
  private upstreamSymbol = "";
  /** The last upstream refused, so a bad URL is logged once, not every beat. */
  private refusedUpstream: string | null = null;
  private readonly random: RandomSource;
  private lastQuoteSentMs = 0;
  private started = false;
  private product: { row: ProductWithDurations | null; loaded_at_ms: number } | null = null;
  private productLoading: Promise<ProductWithDurations | null> | null = null;
  private pending: { order: CheckedOrder; done: (r: PlaceResult | Error) => void }[] = [];
  private writing = false;
  /**
   * The symbol's open risk. This hub is the only writer of its symbol's orders, so it keeps
   * the exposure of the written open orders (`committed`, loaded from D1 with the product)
   * plus the orders accepted but still in the group commit (`reserved`): an order is checked
   * and reserved with no await in between, so concurrent orders see each other.
   */
  private committed: Exposure | null = null;
  private reserved: Exposure = NO_EXPOSURE;
  /** Order writes in flight, and a count bumped when one starts or ends (see loadMarket). */
  private writesInFlight = 0;
  private writeVersion = 0;
  private lastSnapshot: { ts_ms: number; up: number; down: number; worst: number } | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.random = simRandom(env);
    ctx.blockConcurrencyWhile(async () => {
      const sql = ctx.storage.sql;
      sql.exec("CREATE TABLE IF NOT EXISTS ticks (ts_ms INTEGER PRIMARY KEY, price_e8 INTEGER NOT NULL, volume_e8 INTEGER NOT NULL)");
      sql.exec("CREATE TABLE IF NOT EXISTS candles (t_ms INTEGER PRIMARY KEY, o INTEGER, h INTEGER, l INTEGER, c INTEGER, v INTEGER)");
      sql.exec("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
      sql.exec("CREATE TABLE IF NOT EXISTS exposure_history (ts_ms INTEGER PRIMARY KEY, up_payout_micro INTEGER NOT NULL, down_payout_micro INTEGER NOT NULL, worst_case_micro INTEGER NOT NULL)");
      const saved = this.meta<HubConfig>("config");
      if (saved) this.config = saved;
    });
  }

  private get simulated(): boolean {
    return (this.env.PRICE_FEED ?? "simulation") !== "binance";
  }

  private meta<T>(k: string): T | null {
    const row = this.ctx.storage.sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = ?", k).toArray()[0];
    return row ? (JSON.parse(row.v) as T) : null;
  }

  private setMeta(k: string, v: unknown) {
    this.ctx.storage.sql.exec("INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", k, JSON.stringify(v));
  }

  /** Called by the Worker before use: remembers the product and starts the beat. */
  async ensure(config: HubConfig): Promise<void> {
    if (this.started && this.config?.symbol === config.symbol) return;
    if (!this.config || this.config.symbol !== config.symbol) {
      this.config = config;
      this.setMeta("config", config);
    }
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + 10);
    if (this.latestTick() === null && this.simulated) this.backfill(Date.now());
    this.started = true;
  }

  /** A console save changed the product: take its rules (and feed settings) from D1 now. */
  async reload(config: HubConfig): Promise<void> {
    this.config = config;
    this.setMeta("config", config);
    this.product = null;
    await this.ensure(config);
  }

  /**
   * Places an order at this symbol's latest tick, checked against the product's current rules
   * and its exposure limit. Orders that arrive while a write is in flight are written together
   * in the next batch.
   */
  async place(config: HubConfig, input: PlaceOrder): Promise<PlaceResult> {
    await this.ensure(config);
    const db = getDb(invocationDb(this.env));
    const product = await this.currentProduct();
    const now = Date.now();
    const checked = checkOrder(product, input, await this.latest(), now);
    if (checked.status !== "ok") return (await replayOf(db, input)) ?? checked;
    const risk = riskOf(checked.order);
    if (!admits(this.openExposure(), risk, checked.order.product.exposure_limit_micro)) return (await replayOf(db, input)) ?? { status: "exposure_limit" };
    this.reserved = withOrder(this.reserved, risk);
    const result = await new Promise<PlaceResult | Error>((done) => {
      this.pending.push({ order: checked.order, done });
      if (!this.writing) void this.writePending();
    });
    if (result instanceof Error) throw result;
    return result;
  }

  /**
   * Writes the waiting orders, a group per batch. The loop outlives the call that started it
   * (it writes for every caller that joined), so each group gets its own counted view of D1.
   */
  private async writePending() {
    this.writing = true;
    try {
      while (this.pending.length > 0) {
        const group = this.pending.splice(0, ORDER_GROUP_MAX);
        this.writesInFlight++;
        this.writeVersion++;
        try {
          const results = await writeOrders(getDb(invocationDb(this.env)), group.map((g) => g.order));
          group.forEach((g, i) => {
            const r = results[i];
            this.reserved = withOrder(this.reserved, riskOf(g.order), -1);
            // A replay was counted when it was first written.
            if (r.status === "ok" && !r.replayed && this.committed) this.committed = withOrder(this.committed, riskOf(g.order));
            g.done(r);
          });
        } catch (err) {
          for (const g of group) {
            this.reserved = withOrder(this.reserved, riskOf(g.order), -1);
            g.done(err instanceof Error ? err : new Error(String(err)));
          }
        } finally {
          this.writesInFlight--;
          this.writeVersion++;
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private openExposure(): Exposure {
    return combine(this.committed ?? NO_EXPOSURE, this.reserved);
  }

  private async currentProduct(): Promise<ProductWithDurations | null> {
    if (this.product && Date.now() - this.product.loaded_at_ms < PRODUCT_FRESH_MS) return this.product.row;
    this.productLoading ??= this.loadMarket().finally(() => {
      this.productLoading = null;
    });
    return this.productLoading;
  }

  /**
   * The product's rules and the open exposure, in one round trip. A write that started or
   * ended while the query ran may or may not be in its answer, so such an answer replaces the
   * memory (kept exact by every write) only when there is none yet, after a retry or two.
   */
  private async loadMarket(): Promise<ProductWithDurations | null> {
    for (let attempt = 0; ; attempt++) {
      const version = this.writeVersion;
      const quiet = this.writesInFlight === 0;
      const { product, exposure } = await loadMarket(getDb(invocationDb(this.env)), this.config!.symbol);
      this.product = { row: product, loaded_at_ms: Date.now() };
      const clean = quiet && this.writesInFlight === 0 && version === this.writeVersion;
      if (clean || (this.committed === null && attempt >= 2)) this.committed = exposure;
      if (clean || this.committed !== null) return product;
    }
  }

  /** The latest tick, made fresh first when the simulation has been idle. */
  async latest(): Promise<Tick | null> {
    const now = Date.now();
    const last = this.latestTick();
    if (this.simulated && this.config && (!last || now - last.ts_ms >= TICK_MS)) return this.ingest(this.simFeed().next(now));
    return last;
  }

  async quote(): Promise<(QuoteBlock & { simulated: boolean }) | null> {
    const last = await this.latest();
    if (!last) return null;
    const since = last.ts_ms - DAY_MS;
    const candles = this.ctx.storage.sql.exec<Candle>("SELECT t_ms, o, h, l, c, v FROM candles WHERE t_ms >= ? ORDER BY t_ms", since - MINUTE_MS).toArray();
    return { ...quoteBlock(candles, { ...last, symbol: this.config?.symbol ?? "", volume_e8: 0 }), simulated: this.simulated };
  }

  /** Candles of `interval_ms` (60 000, 300 000, 900 000, 3 600 000), oldest first. */
  async candles(interval_ms: number, limit: number): Promise<Candle[]> {
    const minutes = this.ctx.storage.sql
      .exec<Candle>("SELECT t_ms, o, h, l, c, v FROM candles ORDER BY t_ms DESC LIMIT ?", Math.min(limit * (interval_ms / MINUTE_MS), 20_000))
      .toArray()
      .reverse();
    return resample(minutes, interval_ms).slice(-limit);
  }

  async ticks(from_ms: number, to_ms: number): Promise<Tick[]> {
    return this.ctx.storage.sql.exec<Tick>("SELECT ts_ms, price_e8 FROM ticks WHERE ts_ms BETWEEN ? AND ? ORDER BY ts_ms", from_ms, to_ms).toArray();
  }

  /** The scheduled sweep's way in: settle what is due now (a bounded share; the beat goes on at once for the rest). */
  async settleDue(): Promise<{ settled: number; already: number }> {
    const r = await this.settle(Date.now(), getDb(invocationDb(this.env)));
    if (r.more) await this.ctx.storage.setAlarm(Date.now());
    return { settled: r.settled, already: r.already };
  }

  /**
   * The market's open exposure now, the operator's limit, and its snapshots since `since_ms`
   * (oldest first).
   */
  async exposure(since_ms: number): Promise<{ up: Exposure["up"]; down: Exposure["down"]; worst_case_micro: number; limit_micro: number; history: { ts_ms: number; up_payout_micro: number; down_payout_micro: number; worst_case_micro: number }[] }> {
    const product = await this.currentProduct();
    const e = this.openExposure();
    const history = this.ctx.storage.sql
      .exec<{ ts_ms: number; up_payout_micro: number; down_payout_micro: number; worst_case_micro: number }>("SELECT ts_ms, up_payout_micro, down_payout_micro, worst_case_micro FROM exposure_history WHERE ts_ms >= ? ORDER BY ts_ms", since_ms)
      .toArray();
    return { up: e.up, down: e.down, worst_case_micro: worstCase(e), limit_micro: product?.exposure_limit_micro ?? 0, history };
  }

  /** For the benches: the most D1 queries any one invocation of this isolate made. */
  async stats(): Promise<{ peak_queries: number }> {
    return { peak_queries: peakQueries() };
  }

  // ---- the beat ----------------------------------------------------------------------------

  async alarm(): Promise<void> {
    const now = Date.now();
    let more = false;
    try {
      if (this.config) {
        // The tick of this second (an alarm re-armed at once for a burst makes no extra ticks).
        this.keepBeat();
        if (!this.simulated) this.connectUpstream();
        await this.currentProduct();
        more = (await this.settle(now, getDb(invocationDb(this.env)))).more;
        this.recordExposure(Date.now());
        if (now % 60_000 < TICK_MS) this.prune(now);
      }
    } finally {
      // More due orders: go on at once, in a new invocation with its own D1 budget. Otherwise
      // on the next whole second, always: charts stay live and due orders never wait long.
      const next = Date.now();
      await this.ctx.storage.setAlarm(more ? next : next + TICK_MS - (next % TICK_MS) || TICK_MS);
    }
  }

  /** A snapshot of the exposure when it changed, or after 10 s without one. */
  private recordExposure(now: number) {
    if (!this.committed) return;
    const e = this.openExposure();
    const snap = { ts_ms: now, up: e.up.payout_micro, down: e.down.payout_micro, worst: worstCase(e) };
    this.lastSnapshot ??= this.ctx.storage.sql
      .exec<{ ts_ms: number; up: number; down: number; worst: number }>("SELECT ts_ms, up_payout_micro AS up, down_payout_micro AS down, worst_case_micro AS worst FROM exposure_history ORDER BY ts_ms DESC LIMIT 1")
      .toArray()[0] ?? null;
    const last = this.lastSnapshot;
    if (last && now - last.ts_ms < EXPOSURE_EVERY_MS && last.up === snap.up && last.down === snap.down && last.worst === snap.worst) return;
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO exposure_history (ts_ms, up_payout_micro, down_payout_micro, worst_case_micro) VALUES (?, ?, ?, ?)", now, snap.up, snap.down, snap.worst);
    this.lastSnapshot = snap;
  }

  private simFeed(): SimulatedFeed {
    if (!this.sim) {
      const state = this.meta<SimState>("sim");
      const c = this.config!;
      // The saved state is only where the walk stands; every step ahead is freshly random.
      this.sim = state ? new SimulatedFeed(c.symbol, state, simOptions(c.tick_size_e8), this.random) : SimulatedFeed.start(c.symbol, c.start_price_e8, Date.now() - TICK_MS, c.tick_size_e8, this.random);
    }
    return this.sim;
  }

  /** A day of minute candles on first start, so charts and the 24h block have history. */
  private backfill(now: number) {
    const c = this.config!;
    const feed = SimulatedFeed.start(c.symbol, c.start_price_e8, now - DAY_MS - MINUTE_MS, c.tick_size_e8, this.random);
    let candle: Candle | null = null;
    for (let t = now - DAY_MS; t < now - MINUTE_MS; t += 15_000) {
      const tick = feed.next(t);
      const next = foldTick(candle, tick);
      if (candle && next.t_ms !== candle.t_ms) this.saveCandle(candle);
      candle = next;
    }
    if (candle) this.saveCandle(candle);
    this.sim = new SimulatedFeed(c.symbol, { ...feed.snapshot, last_ts_ms: now - MINUTE_MS }, simOptions(c.tick_size_e8), this.random);
    this.setMeta("sim", this.sim.snapshot);
  }

  private saveCandle(c: Candle) {
    this.ctx.storage.sql.exec("INSERT INTO candles (t_ms, o, h, l, c, v) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(t_ms) DO UPDATE SET h = excluded.h, l = excluded.l, c = excluded.c, v = excluded.v", c.t_ms, c.o, c.h, c.l, c.c, c.v);
  }

  private latestTick(): Tick | null {
    return this.ctx.storage.sql.exec<Tick>("SELECT ts_ms, price_e8 FROM ticks ORDER BY ts_ms DESC LIMIT 1").toArray()[0] ?? null;
  }

  /** Stores a tick, folds it into its candle, and sends it to every open page. */
  private ingest(tick: FeedTick): Tick {
    const sql = this.ctx.storage.sql;
    const last = this.latestTick();
    if (last && tick.ts_ms <= last.ts_ms) return last; // ticks only move forward
    sql.exec("INSERT INTO ticks (ts_ms, price_e8, volume_e8) VALUES (?, ?, ?)", tick.ts_ms, tick.price_e8, tick.volume_e8);
    const current = sql.exec<Candle>("SELECT t_ms, o, h, l, c, v FROM candles ORDER BY t_ms DESC LIMIT 1").toArray()[0] ?? null;
    this.saveCandle(foldTick(current, tick));
    if (this.sim) this.setMeta("sim", this.sim.snapshot);
    const symbol = this.config?.symbol ?? tick.symbol;
    this.broadcast({ type: "tick", symbol, price: formatPriceE8(tick.price_e8), ts: tick.ts_ms });
    if (tick.ts_ms - this.lastQuoteSentMs >= 5_000) {
      this.lastQuoteSentMs = tick.ts_ms;
      void this.quote().then((q) => q && this.broadcast(quoteMessage(symbol, q)));
    }
    return { ts_ms: tick.ts_ms, price_e8: tick.price_e8 };
  }

  private broadcast(message: ServerMessage) {
    const text = encode(message);
    for (const ws of this.ctx.getWebSockets()) {
      try {
        ws.send(text);
      } catch {
        // closing socket
      }
    }
  }

  private prune(now: number) {
    this.ctx.storage.sql.exec("DELETE FROM ticks WHERE ts_ms < ?", now - TICK_RETENTION_MS);
    this.ctx.storage.sql.exec("DELETE FROM candles WHERE t_ms < ?", now - CANDLE_RETENTION_MS);
    this.ctx.storage.sql.exec("DELETE FROM exposure_history WHERE ts_ms < ?", now - EXPOSURE_RETENTION_MS);
  }

  /**
   * Settles up to SETTLE_PER_INVOCATION of the symbol's due orders from this object's ticks,
   * 500 per database batch, and tells their owners; `more` says whether more are due (the
   * caller re-arms the alarm at once, so a burst settles over several short invocations, each
   * within D1's query limit). Between batches it keeps the beat (a second that passed gets its
   * tick) and gives way to other requests, so a burst never freezes the rest of the app.
   */
  private async settle(now: number, db: Db): Promise<{ settled: number; already: number; more: boolean }> {
    if (!this.config) return { settled: 0, already: 0, more: false };
    const last = this.latestTick();
    const horizon = Math.max(last?.ts_ms ?? 0, now - SETTLE_WAIT_MS);
    let total = { settled: 0, already: 0 };
    const notices: Promise<unknown>[] = [];
    // A user's outcomes wait until none of theirs can be in the next batch (batches keep each
    // user's orders together): one notice per user, as soon as all of theirs are settled.
    let waiting = new Map<number, { order_id: number; status: Order["status"] }[]>();
    const tell = (users: Map<number, { order_id: number; status: Order["status"] }[]>) => {
      for (const [user_id, outcomes] of users) notices.push(this.notify(user_id, outcomes).catch(() => undefined));
    };
    let more = false;
    for (let taken = 0; ; ) {
      const due = await dueOrders(db, this.config.symbol, horizon, SETTLE_CHUNK);
      if (due.length === 0) break;
      taken += due.length;
      const r = await this.writeDue(db, due, now);
      total = { settled: total.settled + r.settled, already: total.already + r.already };
      for (const o of r.decided) {
        const list = waiting.get(o.user_id) ?? [];
        list.push({ order_id: o.id, status: o.status });
        waiting.set(o.user_id, list);
      }
      if (due.length < SETTLE_CHUNK) break;
      // The last user's orders may go on in the next batch: their notice waits for it.
      const lastUser = due[due.length - 1].user_id;
      const carried = waiting.get(lastUser)!;
      waiting.delete(lastUser);
      tell(waiting);
      waiting = new Map([[lastUser, carried]]);
      if (taken >= SETTLE_PER_INVOCATION) {
        // The rest goes to the next invocation; the last user hears now what is settled (and
        // again when the rest is), rather than risk hearing nothing if none of theirs is left.
        more = true;
        break;
      }
      this.keepBeat();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    tell(waiting);
    await Promise.all(notices);
    return { ...total, more };
  }

  /** Decides a batch of due orders from the ticks and writes it; the exposure drops by what was written. */
  private async writeDue(db: Db, due: Order[], now: number) {
    let from = Infinity;
    let to = -Infinity;
    for (const o of due) {
      from = Math.min(from, o.entry_tick_ts_ms, o.delivery_at_ms);
      to = Math.max(to, o.delivery_at_ms);
    }
    const ticks = await this.ticks(from - 15_000, to + 5_000);
    const decided = due.map((o) => decide(o, ticks));
    this.writesInFlight++;
    this.writeVersion++;
    try {
      const r = await writeSettlements(db, decided, now, {
        chunk: SETTLE_CHUNK,
        onSettled: (written) => this.release(written.map((s) => s.order)),
      });
      return { ...r, decided: decided.map((s) => ({ id: s.order.id, user_id: s.order.user_id, status: s.outcome.status })) };
    } finally {
      this.writesInFlight--;
      this.writeVersion++;
    }
  }

  /**
   * Takes settled orders off the exposure. Below zero means orders were written behind this
   * hub's back (only tests and benches do that) after it last loaded the exposure: the figures
   * stop at zero and are read again from the database at the next use.
   */
  private release(settled: readonly Order[]) {
    if (!this.committed) return;
    let e = this.committed;
    for (const o of settled) e = withOrder(e, o, -1);
    const floor = (x: Exposure["up"]) => ({ stake_micro: Math.max(0, x.stake_micro), payout_micro: Math.max(0, x.payout_micro) });
    if (e.up.stake_micro < 0 || e.up.payout_micro < 0 || e.down.stake_micro < 0 || e.down.payout_micro < 0) this.product = null;
    this.committed = { up: floor(e.up), down: floor(e.down) };
  }

  /** The simulated feed's tick for a second that passed while this object was busy. */
  private keepBeat() {
    if (!this.simulated || !this.config) return;
    const now = Date.now();
    const last = this.latestTick();
    if (!last || Math.floor(now / TICK_MS) > Math.floor(last.ts_ms / TICK_MS)) this.ingest(this.simFeed().next(now));
  }

  private async notify(user_id: number, outcomes: { order_id: number; status: Order["status"] }[]) {
    const channel = this.env.USER_CHANNEL.get(this.env.USER_CHANNEL.idFromName(String(user_id)));
    // The last order's result, then one balance notice: the page reloads its lists once.
    const last = outcomes[outcomes.length - 1];
    await channel.publishAll([
      { type: "order", order_id: last.order_id, status: last.status },
      { type: "balance", reason: "trade" },
    ]);
  }

  // ---- the real exchange -------------------------------------------------------------------

  /**
   * Opens the exchange stream of the product's feed symbol, only to an allowed upstream
   * (PRICE_FEED_ALLOWED_HOSTS); without a connection there are no ticks, and orders are
   * refused as soon as the last one is too old.
   */
  private connectUpstream() {
    const c = this.config;
    if (!this.env.PRICE_FEED_URL || !c) return;
    if (this.upstream && this.upstreamSymbol === c.feed_symbol) return;
    this.upstream?.close(1000, "feed symbol changed");
    this.upstream = null;
    const stream = binanceStreamUrl(this.env.PRICE_FEED_URL, c.feed_symbol);
    if (!feedUrlAllowed(this.env, stream)) return this.refuseUpstream(stream);
    // The parsed form is what was checked, so it is what gets fetched.
    const url = new URL(stream).href.replace(/^ws/, "http");
    void fetch(url, { headers: { upgrade: "websocket" } })
      .then((res) => {
        const ws = res.webSocket;
        if (!ws) throw new Error(`upstream refused: ${res.status}`);
        ws.accept();
        this.upstream = ws;
        this.upstreamSymbol = c.feed_symbol;
        ws.addEventListener("message", (e) => {
          const tick = this.config && upstreamTick(e.data, this.config.feed_symbol);
          if (tick) this.ingest(tick);
        });
        const drop = () => {
          if (this.upstream === ws) this.upstream = null;
        };
        ws.addEventListener("close", drop);
        ws.addEventListener("error", drop);
      })
      .catch((err) => {
        console.error("price feed connect failed", err);
        this.upstream = null;
      });
  }

  private refuseUpstream(url: string) {
    if (this.refusedUpstream === url) return;
    this.refusedUpstream = url;
    let host = "an unparseable URL";
    try {
      host = new URL(url).host;
    } catch {
      // reported as unparseable
    }
    console.error(`price feed: upstream ${host} refused (wss to a host on PRICE_FEED_ALLOWED_HOSTS only); no connection made`);
  }

  // ---- pages -------------------------------------------------------------------------------

  async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket", { status: 426 });
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    server.send(encode({ type: "hello", server_time_ms: Date.now() }));
    const q = await this.quote();
    if (q && this.config) server.send(encode(quoteMessage(this.config.symbol, q)));
    return new Response(null, { status: 101, webSocket: client });
  }

  async webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer) {
    const message = parseClientMessage(raw);
    if (!message) return ws.close(1003, "unsupported message");
    if (message.type === "ping") ws.send(encode({ type: "pong", server_time_ms: Date.now() }));
  }

  async webSocketClose(ws: WebSocket, code: number) {
    ws.close(code === 1005 || code === 1006 ? 1000 : code, "bye");
  }

  async webSocketError(ws: WebSocket) {
    ws.close(1011, "error");
  }
}

/** What an order adds to its side's exposure. */
function riskOf(o: CheckedOrder): ExposureOrder {
  return { direction: o.input.direction, stake_micro: o.input.stake_micro, profit_rate_bp: o.duration.profit_rate_bp };
}

export function quoteMessage(symbol: string, q: QuoteBlock & { simulated: boolean }): ServerMessage {
  return {
    type: "quote",
    symbol,
    price: formatPriceE8(q.price_e8),
    open: formatPriceE8(q.open_e8),
    high: formatPriceE8(q.high_e8),
    low: formatPriceE8(q.low_e8),
    volume: formatPriceE8(q.volume_e8, 0),
    change_pct: (q.change_bp / 100).toFixed(2),
    ts: q.ts_ms,
    simulated: q.simulated,
  };
}
