/**
 * The quote channel's messages to the pages: every tick, and the 24h quote block on connect
 * and every few seconds; and how many pages' sockets one hub takes.
 */
import { formatPriceE8 } from "../../worker/domain/money/units";
import type { Env } from "../../worker/env";
import { sendAll, type PageSocket } from "../page-sockets";
import type { ServerMessage } from "../protocol";
import type { FeedTick } from "./feed";
import type { HubQuote } from "./hub-api";

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

/** The quote block goes out at most this often (pages also get it on connect). */
const QUOTE_EVERY_MS = 5_000;

export function quoteMessage(symbol: string, q: HubQuote): ServerMessage {
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

/** Sends each stored tick to every open page, and the quote block when it is due. */
export class QuoteFanout {
  private lastQuoteSentMs = 0;

  constructor(
    private readonly sockets: () => Iterable<PageSocket>,
    private readonly quote: () => Promise<HubQuote | null>,
  ) {}

  tick(symbol: string, tick: FeedTick) {
    sendAll(this.sockets(), [{ type: "tick", symbol, price: formatPriceE8(tick.price_e8), ts: tick.ts_ms }]);
    if (tick.ts_ms - this.lastQuoteSentMs < QUOTE_EVERY_MS) return;
    this.lastQuoteSentMs = tick.ts_ms;
    void this.quote().then((q) => q && sendAll(this.sockets(), [quoteMessage(symbol, q)]));
  }
}
