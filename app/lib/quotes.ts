import { WebSocket as ReconnectingWebSocket } from "partysocket";
import { reconnectOptions } from "./socket-options";
import { useEffect, useRef, useState } from "react";
import { parseServerMessage, type ServerMessage } from "../../durable-objects/protocol";
import { parsePriceE8 } from "../../worker/domain/money/units";

/**
 * Live quotes: one reconnecting WebSocket per symbol (`/ws/quotes/BTC-USDT`), shared by every
 * component that watches it and closed a few seconds after the last one stops (so moving from
 * the markets list to a product keeps the socket). Messages are validated with the shared
 * protocol; a malformed one is ignored. After a reconnect the server sends the quote block
 * again, and listeners get a `reconnected` event (the chart reloads its candles).
 */
export type LiveQuote = {
  symbol: string;
  price: string;
  ts: number;
  open: string | null;
  high: string | null;
  low: string | null;
  volume: string | null;
  change_pct: string | null;
  simulated: boolean | null;
  /** Direction of the last price change, for a short flash. */
  move: "up" | "down" | null;
};

type TickMessage = Extract<ServerMessage, { type: "tick" }>;
type QuoteMessage = Extract<ServerMessage, { type: "quote" }>;
export type QuoteEvent = TickMessage | QuoteMessage | { type: "reconnected"; symbol: string };
type Listener = (event: QuoteEvent) => void;

/** "connecting" until the first open; "reconnecting" after a drop or a refusal (a busy hub answers 503). */
export type QuoteConnection = "connecting" | "live" | "reconnecting";

type Channel = {
  socket: ReconnectingWebSocket;
  listeners: Set<Listener>;
  last: LiveQuote | null;
  opens: number;
  closeTimer: ReturnType<typeof setTimeout> | null;
  connection: QuoteConnection;
  watchers: Set<(c: QuoteConnection) => void>;
};

const channels = new Map<string, Channel>();
const LINGER_MS = 5_000;

/** "BTC/USDT" → "/ws/quotes/BTC-USDT". */
export function quotePath(symbol: string): string {
  return `/ws/quotes/${encodeURIComponent(symbol.replace(/\//g, "-"))}`;
}

function e8(price: string | null | undefined): number | null {
  return price ? parsePriceE8(price) : null;
}

function moveOf(prev: string | null | undefined, next: string): LiveQuote["move"] {
  const a = e8(prev);
  const b = e8(next);
  if (a === null || b === null || a === b) return null;
  return b > a ? "up" : "down";
}

/** The server's own change formula (durable-objects/quotes/candles.ts), on exact prices. */
function changeFrom(open: string | null, price: string): string | null {
  const o = e8(open);
  const p = e8(price);
  if (o === null || p === null || o === 0) return null;
  return (Math.round(((p - o) * 10_000) / o) / 100).toFixed(2);
}

function fold(last: LiveQuote | null, m: TickMessage | QuoteMessage): LiveQuote | null {
  if (last && m.ts < last.ts) return null; // out of order: keep the newer state
  if (m.type === "quote") {
    return { symbol: m.symbol, price: m.price, ts: m.ts, open: m.open, high: m.high, low: m.low, volume: m.volume, change_pct: m.change_pct, simulated: m.simulated, move: moveOf(last?.price, m.price) ?? last?.move ?? null };
  }
  const p = e8(m.price);
  const hi = e8(last?.high);
  const lo = e8(last?.low);
  return {
    symbol: m.symbol,
    price: m.price,
    ts: m.ts,
    open: last?.open ?? null,
    high: last?.high && p !== null && hi !== null && p > hi ? m.price : (last?.high ?? null),
    low: last?.low && p !== null && lo !== null && p < lo ? m.price : (last?.low ?? null),
    volume: last?.volume ?? null,
    change_pct: changeFrom(last?.open ?? null, m.price) ?? last?.change_pct ?? null,
    simulated: last?.simulated ?? null,
    move: moveOf(last?.price, m.price) ?? last?.move ?? null,
  };
}

function open(symbol: string): Channel {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${quotePath(symbol)}`;
  // Backoff with jitter: after a busy hub refuses, pages do not all come back in the same instant.
  const socket = new ReconnectingWebSocket(url, [], reconnectOptions());
  const channel: Channel = { socket, listeners: new Set(), last: null, opens: 0, closeTimer: null, connection: "connecting", watchers: new Set() };
  const setConnection = (c: QuoteConnection) => {
    if (channel.connection === c) return;
    channel.connection = c;
    for (const w of [...channel.watchers]) w(c);
  };
  socket.addEventListener("open", () => {
    channel.opens += 1;
    if (channel.opens > 1) for (const l of [...channel.listeners]) l({ type: "reconnected", symbol });
  });
  socket.addEventListener("close", () => setConnection("reconnecting"));
  socket.addEventListener("message", (event) => {
    const message = parseServerMessage(event.data);
    // Live once the hub speaks (its hello comes first): an open socket that says nothing is not.
    if (message) setConnection("live");
    if (!message || (message.type !== "tick" && message.type !== "quote")) return;
    const next = fold(channel.last, message);
    if (!next) return;
    channel.last = next;
    for (const l of [...channel.listeners]) l(message);
  });
  return channel;
}

/** Watches a symbol; answers the function that stops watching. Client only. */
export function subscribeQuotes(symbol: string, listener: Listener): () => void {
  let channel = channels.get(symbol);
  if (!channel) {
    channel = open(symbol);
    channels.set(symbol, channel);
  }
  if (channel.closeTimer) {
    clearTimeout(channel.closeTimer);
    channel.closeTimer = null;
  }
  channel.listeners.add(listener);
  const c = channel;
  return () => {
    c.listeners.delete(listener);
    if (c.listeners.size > 0 || c.closeTimer) return;
    c.closeTimer = setTimeout(() => {
      if (c.listeners.size > 0) return;
      c.socket.close();
      channels.delete(symbol);
    }, LINGER_MS);
  };
}

/**
 * Whether a symbol's live prices are flowing: pages say "busy, reconnecting" instead of showing a
 * frozen price as live. Client only; "connecting" on the server.
 */
export function useQuoteConnection(symbol: string): QuoteConnection {
  const [connection, setConnection] = useState<QuoteConnection>("connecting");
  useEffect(() => {
    const stop = subscribeQuotes(symbol, () => {});
    const channel = channels.get(symbol)!;
    setConnection(channel.connection);
    channel.watchers.add(setConnection);
    return () => {
      channel.watchers.delete(setConnection);
      stop();
    };
  }, [symbol]);
  return connection;
}

/** The latest state of a watched symbol, if any message has arrived. */
export function latestQuote(symbol: string): LiveQuote | null {
  return channels.get(symbol)?.last ?? null;
}

/**
 * Live quotes for the given symbols, keyed by symbol. Empty on the server and until the first
 * message; pages show the loader's quote until then (see `withLive`).
 */
export function useQuotes(symbols: readonly string[]): Record<string, LiveQuote> {
  const key = [...new Set(symbols)].sort().join("\n");
  const [quotes, setQuotes] = useState<Record<string, LiveQuote>>({});
  useEffect(() => {
    const list = key ? key.split("\n") : [];
    const initial: Record<string, LiveQuote> = {};
    for (const s of list) {
      const q = latestQuote(s);
      if (q) initial[s] = q;
    }
    setQuotes(initial);
    const stops = list.map((s) =>
      subscribeQuotes(s, (event) => {
        if (event.type === "reconnected") return;
        const q = latestQuote(s);
        if (q) setQuotes((prev) => (prev[s] === q ? prev : { ...prev, [s]: q }));
      }),
    );
    return () => stops.forEach((stop) => stop());
  }, [key]);
  return quotes;
}

/** Every event of one symbol, for components that draw ticks themselves (the chart). */
export function useQuoteEvents(symbol: string, handler: Listener) {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => subscribeQuotes(symbol, (e) => ref.current(e)), [symbol]);
}

type QuoteFields = { price: string | null; change_pct: string | null; open: string | null; high: string | null; low: string | null; volume: string | null; quote_ts: number | null; simulated: boolean };

/** A product's quote with the live one laid over it when the live one is newer. */
export function withLive<T extends QuoteFields>(product: T, live: LiveQuote | undefined): T & { move: LiveQuote["move"] } {
  if (!live || (product.quote_ts !== null && live.ts < product.quote_ts)) return { ...product, move: null };
  return {
    ...product,
    price: live.price,
    change_pct: live.change_pct ?? product.change_pct,
    open: live.open ?? product.open,
    high: live.high ?? product.high,
    low: live.low ?? product.low,
    volume: live.volume ?? product.volume,
    quote_ts: live.ts,
    simulated: live.simulated ?? product.simulated,
    move: live.move,
  };
}
