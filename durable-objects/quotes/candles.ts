/**
 * 1-minute candles built from ticks, and the 24-hour quote block (latest, change, open, high,
 * low, volume). Pure functions over plain arrays, so they are tested without a Durable Object.
 */
import type { FeedTick } from "./feed";

export type Candle = { t_ms: number; o: number; h: number; l: number; c: number; v: number };

export const MINUTE_MS = 60_000;
export const DAY_MS = 24 * 3600_000;

export function minuteOf(ts_ms: number): number {
  return Math.floor(ts_ms / MINUTE_MS) * MINUTE_MS;
}

/** Folds a tick into its minute's candle (creating it when it is the first of the minute). */
export function foldTick(candle: Candle | null, tick: FeedTick): Candle {
  const t_ms = minuteOf(tick.ts_ms);
  if (!candle || candle.t_ms !== t_ms) return { t_ms, o: tick.price_e8, h: tick.price_e8, l: tick.price_e8, c: tick.price_e8, v: tick.volume_e8 };
  return { t_ms, o: candle.o, h: Math.max(candle.h, tick.price_e8), l: Math.min(candle.l, tick.price_e8), c: tick.price_e8, v: candle.v + tick.volume_e8 };
}

/** Merges 1-minute candles into `interval_ms` candles (5m, 15m, 1h). Input oldest first. */
export function resample(candles: readonly Candle[], interval_ms: number): Candle[] {
  const out: Candle[] = [];
  for (const c of candles) {
    const t_ms = Math.floor(c.t_ms / interval_ms) * interval_ms;
    const last = out[out.length - 1];
    if (last && last.t_ms === t_ms) {
      last.h = Math.max(last.h, c.h);
      last.l = Math.min(last.l, c.l);
      last.c = c.c;
      last.v += c.v;
    } else out.push({ ...c, t_ms });
  }
  return out;
}

export type QuoteBlock = { price_e8: number; open_e8: number; high_e8: number; low_e8: number; volume_e8: number; change_bp: number; ts_ms: number };

/** The 24h quote from the candles of the last day (oldest first) and the latest tick. */
export function quoteBlock(candles: readonly Candle[], latest: FeedTick): QuoteBlock {
  const since = latest.ts_ms - DAY_MS;
  const day = candles.filter((c) => c.t_ms >= minuteOf(since));
  const open_e8 = day.length ? day[0].o : latest.price_e8;
  const high_e8 = Math.max(latest.price_e8, ...day.map((c) => c.h));
  const low_e8 = Math.min(latest.price_e8, ...day.map((c) => c.l));
  const volume_e8 = day.reduce((s, c) => s + c.v, 0);
  const change_bp = Math.round(((latest.price_e8 - open_e8) * 10_000) / open_e8);
  return { price_e8: latest.price_e8, open_e8, high_e8, low_e8, volume_e8, change_bp, ts_ms: latest.ts_ms };
}
