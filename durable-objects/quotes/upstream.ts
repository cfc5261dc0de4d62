/**
 * The exchange's trade stream for one hub: connects only to an allowed upstream
 * (PRICE_FEED_ALLOWED_HOSTS), hands on the trades of the product's own feed symbol, and
 * connects again after a drop with a growing, jittered wait (backoff.ts). A stream that stays
 * open but sends no trade for SILENT_AFTER_MS is taken as dropped: without ticks every order
 * is refused and every due order voids, so a dead socket must not be kept.
 */
import { FEED_BACKOFF, reconnectDelay } from "./backoff";
import { feedUrlAllowed, type FeedEnv } from "../../worker/domain/quotes/upstream-url";
import { binanceStreamUrl, upstreamTick, type FeedTick } from "./feed";

/** No trade of the feed symbol for this long: the stream is closed and opened again. */
export const SILENT_AFTER_MS = 10_000;

/** The part of a WebSocket the feed uses. */
export type UpstreamSocket = {
  addEventListener(type: "message", listener: (e: { data: unknown }) => void): void;
  addEventListener(type: "close" | "error", listener: () => void): void;
  close(code?: number, reason?: string): void;
};

export type UpstreamDeps = {
  /** Opens the stream (a fetch upgrade in the hub); rejects when the upstream refuses. */
  open(url: string): Promise<UpstreamSocket>;
  now(): number;
  /** Runs `fn` after `ms` (setTimeout in the hub). */
  later(fn: () => void, ms: number): void;
  random(): number;
  onTick(tick: FeedTick): void;
  /** One structured line (the hub writes it through worker/observability/log.ts). */
  log(event: string, fields?: Record<string, unknown>): void;
};

/** Opens an upstream WebSocket with a fetch upgrade (the parsed form is what was checked, so it is what gets fetched). */
export async function openUpstream(stream: string): Promise<UpstreamSocket> {
  const res = await fetch(new URL(stream).href.replace(/^ws/, "http"), { headers: { upgrade: "websocket" } });
  const ws = res.webSocket;
  if (!ws) throw new Error(`upstream refused: ${res.status}`);
  ws.accept();
  return ws;
}

export class UpstreamFeed {
  private feedSymbol = "";
  private stream = "";
  private socket: UpstreamSocket | null = null;
  /** Bumped by every connect and drop: a late answer to an abandoned attempt is closed unused. */
  private attempt = 0;
  private connectingSince: number | null = null;
  /** Failures since the stream last delivered a trade (an open without trades does not count as healthy). */
  private failures = 0;
  private retryAt = 0;
  private lastHeardMs = 0;
  /** The last upstream refused, so a bad URL is logged once, not every beat. */
  private refused: string | null = null;

  constructor(private readonly deps: UpstreamDeps) {}

  /**
   * Called on every beat: opens the stream of `feed_symbol` when it is due, starts over on a
   * new symbol, and drops a stream that went silent (or a connect that never answered).
   */
  keep(env: FeedEnv, feed_symbol: string) {
    if (!env.PRICE_FEED_URL) return;
    const now = this.deps.now();
    if (feed_symbol !== this.feedSymbol) this.restart(feed_symbol);
    if ((this.socket || this.connectingSince !== null) && now - Math.max(this.lastHeardMs, this.connectingSince ?? 0) >= SILENT_AFTER_MS) this.fail("silent");
    if (this.socket || this.connectingSince !== null || now < this.retryAt) return;
    const stream = binanceStreamUrl(env.PRICE_FEED_URL, feed_symbol);
    if (!feedUrlAllowed(env, stream)) return this.refuse(stream);
    this.stream = stream;
    this.connect();
  }

  /** Is a stream open now? */
  get connected(): boolean {
    return this.socket !== null;
  }

  private restart(feed_symbol: string) {
    this.socket?.close(1000, "feed symbol changed");
    this.socket = null;
    this.connectingSince = null;
    this.attempt++;
    this.feedSymbol = feed_symbol;
    this.failures = 0;
    this.retryAt = 0;
  }

  private connect() {
    const attempt = ++this.attempt;
    this.connectingSince = this.deps.now();
    this.deps.open(this.stream).then(
      (ws) => (attempt === this.attempt ? this.opened(ws, attempt) : ws.close(1000, "abandoned")),
      (err) => {
        this.deps.log("feed.upstream_connect_failed", { err });
        if (attempt === this.attempt) this.fail();
      },
    );
  }

  private opened(ws: UpstreamSocket, attempt: number) {
    this.socket = ws;
    this.connectingSince = null;
    this.lastHeardMs = this.deps.now();
    const symbol = this.feedSymbol;
    ws.addEventListener("message", (e) => {
      const tick = attempt === this.attempt ? upstreamTick(e.data, symbol) : null;
      if (!tick) return;
      this.lastHeardMs = this.deps.now();
      this.failures = 0;
      this.deps.onTick(tick);
    });
    const drop = () => {
      if (attempt === this.attempt) this.fail();
    };
    ws.addEventListener("close", drop);
    ws.addEventListener("error", drop);
  }

  /** The stream (or the attempt to open it) failed: close it and connect again after the backoff. */
  private fail(reason?: string) {
    if (reason) this.socket?.close(1000, reason);
    this.socket = null;
    this.connectingSince = null;
    this.attempt++;
    this.failures++;
    const wait = reconnectDelay(this.failures, FEED_BACKOFF, this.deps.random);
    this.retryAt = this.deps.now() + wait;
    const attempt = this.attempt;
    this.deps.later(() => {
      if (attempt === this.attempt && !this.socket && this.connectingSince === null) this.connect();
    }, wait);
  }

  private refuse(url: string) {
    if (this.refused === url) return;
    this.refused = url;
    let host = "an unparseable URL";
    try {
      host = new URL(url).host;
    } catch {
      // reported as unparseable
    }
    // wss to a host on PRICE_FEED_ALLOWED_HOSTS only: no connection is made.
    this.deps.log("feed.upstream_refused", { host });
  }
}
