import { DurableObject } from "cloudflare:workers";
import { getDb } from "../../worker/db/client";
import { checkOrder, decide, dueOrders, getProductBySymbol, replayOf, writeOrders, writeSettlements, type CheckedOrder, type Order, type PlaceOrder, type PlaceResult, type ProductWithDurations } from "../../worker/domain/trades/orders";
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
/** Due orders settled per database batch (set-based statements plus two per transfer). */
const SETTLE_CHUNK = 500;
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

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.random = simRandom(env);
    ctx.blockConcurrencyWhile(async () => {
      const sql = ctx.storage.sql;
      sql.exec("CREATE TABLE IF NOT EXISTS ticks (ts_ms INTEGER PRIMARY KEY, price_e8 INTEGER NOT NULL, volume_e8 INTEGER NOT NULL)");
      sql.exec("CREATE TABLE IF NOT EXISTS candles (t_ms INTEGER PRIMARY KEY, o INTEGER, h INTEGER, l INTEGER, c INTEGER, v INTEGER)");
      sql.exec("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)");
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
   * Places an order at this symbol's latest tick, checked against the product's current rules.
   * Orders that arrive while a write is in flight are written together in the next batch.
   */
  async place(config: HubConfig, input: PlaceOrder): Promise<PlaceResult> {
    await this.ensure(config);
    const product = await this.currentProduct();
    const now = Date.now();
    const checked = checkOrder(product, input, await this.latest(), now);
    if (checked.status !== "ok") return (await replayOf(getDb(this.env.DB), input)) ?? checked;
    const result = await new Promise<PlaceResult | Error>((done) => {
      this.pending.push({ order: checked.order, done });
      if (!this.writing) void this.writePending();
    });
    if (result instanceof Error) throw result;
    return result;
  }

  private async writePending() {
    this.writing = true;
    try {
      while (this.pending.length > 0) {
        const group = this.pending.splice(0, ORDER_GROUP_MAX);
        try {
          const results = await writeOrders(getDb(this.env.DB), group.map((g) => g.order));
          group.forEach((g, i) => g.done(results[i]));
        } catch (err) {
          for (const g of group) g.done(err instanceof Error ? err : new Error(String(err)));
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private async currentProduct(): Promise<ProductWithDurations | null> {
    if (this.product && Date.now() - this.product.loaded_at_ms < PRODUCT_FRESH_MS) return this.product.row;
    this.productLoading ??= getProductBySymbol(getDb(this.env.DB), this.config!.symbol)
      .then((row) => {
        this.product = { row, loaded_at_ms: Date.now() };
        return row;
      })
      .finally(() => {
        this.productLoading = null;
      });
    return this.productLoading;
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

  /** The scheduled sweep's way in: settle whatever is due now. */
  async settleDue(): Promise<{ settled: number; already: number }> {
    return this.settle(Date.now());
  }

  // ---- the beat ----------------------------------------------------------------------------

  async alarm(): Promise<void> {
    const now = Date.now();
    try {
      if (this.config) {
        if (this.simulated) this.ingest(this.simFeed().next(now));
        else this.connectUpstream();
        await this.settle(now);
        if (now % 60_000 < TICK_MS) this.prune(now);
      }
    } finally {
      // On the next whole second, always: charts stay live and due orders never wait long.
      await this.ctx.storage.setAlarm(now + TICK_MS - (now % TICK_MS) || TICK_MS);
    }
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
  }

  /**
   * Settles the symbol's due orders from this object's ticks, 500 orders per database batch,
   * and tells their owners. Between batches it keeps the beat (a second that passed gets its
   * tick, so charts stay live and later deliveries have their ticks) and gives way to other
   * requests, so a burst of thousands of due orders never freezes the rest of the app.
   */
  private async settle(now: number): Promise<{ settled: number; already: number }> {
    if (!this.config) return { settled: 0, already: 0 };
    const db = getDb(this.env.DB);
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
    for (;;) {
      const due = await dueOrders(db, this.config.symbol, horizon, SETTLE_CHUNK);
      if (due.length === 0) break;
      let from = Infinity;
      let to = -Infinity;
      for (const o of due) {
        from = Math.min(from, o.entry_tick_ts_ms, o.delivery_at_ms);
        to = Math.max(to, o.delivery_at_ms);
      }
      const ticks = await this.ticks(from - 15_000, to + 5_000);
      const decided = due.map((o) => decide(o, ticks));
      const r = await writeSettlements(db, decided, now, SETTLE_CHUNK);
      total = { settled: total.settled + r.settled, already: total.already + r.already };
      for (const s of decided) {
        const list = waiting.get(s.order.user_id) ?? [];
        list.push({ order_id: s.order.id, status: s.outcome.status });
        waiting.set(s.order.user_id, list);
      }
      if (due.length < SETTLE_CHUNK) break;
      const lastUser = due[due.length - 1].user_id;
      const carried = waiting.get(lastUser)!;
      waiting.delete(lastUser);
      tell(waiting);
      waiting = new Map([[lastUser, carried]]);
      this.keepBeat();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    tell(waiting);
    await Promise.all(notices);
    return total;
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
