/**
 * Price feeds. `QuoteHub` (one Durable Object per symbol) takes its ticks from a PriceFeed:
 * - the simulation (default locally; pages show "simulated prices" while it is in use): each
 *   hour's walk follows from a committed seed (simulation.ts); SimulatedFeed, a walk on the
 *   CSPRNG, draws only the first start's day of chart history;
 * - the Binance adapter: parses the exchange's public trade stream (`<symbol>@trade`).
 * Prices are integers scaled by 10^8 (see worker/domain/trades/settlement.ts).
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { z } from "zod";
import { parsePriceE8 } from "../../worker/domain/money/units";
import { parseJson } from "../protocol";

/** `trade_id`: the exchange's own id of the trade (the simulation has none). */
export type FeedTick = { symbol: string; ts_ms: number; price_e8: number; volume_e8: number; trade_id?: string };

export type FeedKind = "simulation" | "binance";

/** A source of uniform numbers in [0, 1). */
export type RandomSource = () => number;

/**
 * The walk's randomness: the platform's CSPRNG, drawn in blocks. Nothing about it is stored
 * or published, so no run of past ticks tells anyone where the price goes next.
 */
export function cryptoRandom(block = 256): RandomSource {
  const buffer = new Uint32Array(block);
  let used = block;
  return () => {
    if (used === block) {
      crypto.getRandomValues(buffer);
      used = 0;
    }
    return buffer[used++] / 4294967296;
  };
}

/** mulberry32, a tiny seedable PRNG: reproducible walks for tests only (see simRandom). */
export function seededRandom(seed: number): RandomSource {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function seedOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h | 0;
}

/**
 * The randomness a hub's simulation uses: a test run may fix it with SIM_SEED so a walk can be
 * replayed; anywhere else (local, production) it is always the CSPRNG, whatever is configured.
 */
export function simRandom(env: { APP_ENV?: string; SIM_SEED?: string }): RandomSource {
  return env.APP_ENV === "test" && env.SIM_SEED ? seededRandom(seedOf(env.SIM_SEED)) : cryptoRandom();
}

/**
 * Each simulated hour's seed: 32 bytes from the CSPRNG. A test run may fix them with SIM_SEED
 * (HMAC of the symbol and the hour's start under it) so a walk can be replayed; anywhere else
 * the configuration cannot choose them.
 */
export function simSeeds(env: { APP_ENV?: string; SIM_SEED?: string }): (symbol: string, from_s: number) => Uint8Array {
  const fixed = env.APP_ENV === "test" && env.SIM_SEED ? new TextEncoder().encode(env.SIM_SEED) : null;
  return (symbol, from_s) => (fixed ? hmac(sha256, fixed, new TextEncoder().encode(`${symbol}:${from_s}`)) : crypto.getRandomValues(new Uint8Array(32)));
}

/** What a hub persists of its walk: where it stands, never what comes next. */
export type SimState = { price_e8: number; last_ts_ms: number };

export type SimOptions = { sigma: number; tick_size_e8: number; floor_e8: number };

export function simOptions(tick_size_e8 = 1_000_000): SimOptions {
  return { sigma: 0.0001, tick_size_e8, floor_e8: tick_size_e8 };
}

/**
 * A geometric random walk with per-second volatility `sigma` (0.0001 ≈ 3 % a day, about what
 * BTC does) and occasional bursts, rounded
 * to the symbol's tick size, so charts move like a market. Prices stay within [floor, ∞).
 */
export class SimulatedFeed {
  private state: SimState;

  constructor(
    readonly symbol: string,
    state: SimState,
    private readonly opts: SimOptions = simOptions(),
    private readonly random: RandomSource = cryptoRandom(),
  ) {
    // Only the position is taken: a state saved by an older version may carry more.
    this.state = { price_e8: state.price_e8, last_ts_ms: state.last_ts_ms };
  }

  static start(symbol: string, price_e8: number, ts_ms: number, tick_size_e8 = 1_000_000, random: RandomSource = cryptoRandom()): SimulatedFeed {
    return new SimulatedFeed(symbol, { price_e8, last_ts_ms: ts_ms }, simOptions(tick_size_e8), random);
  }

  get snapshot(): SimState {
    return { ...this.state };
  }

  /** Standard normal via Box-Muller. */
  private gaussian(): number {
    const u = Math.max(this.random(), 1e-12);
    const v = this.random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** The tick at `ts_ms` (later than the last one): one step of the walk per call. */
  next(ts_ms: number): FeedTick {
    const dt_s = Math.min(60, Math.max(0.001, (ts_ms - this.state.last_ts_ms) / 1000));
    const burst = this.random() < 0.02 ? 4 : 1;
    const step = this.opts.sigma * burst * Math.sqrt(dt_s) * this.gaussian();
    const raw = this.state.price_e8 * Math.exp(step);
    const size = this.opts.tick_size_e8;
    const price_e8 = Math.max(this.opts.floor_e8, Math.round(raw / size) * size);
    this.state.price_e8 = price_e8;
    this.state.last_ts_ms = ts_ms;
    const volume_e8 = Math.round((0.05 + this.random() * 2) * 1e8);
    return { symbol: this.symbol, ts_ms, price_e8, volume_e8 };
  }
}

/**
 * Binance public trade stream message (`wss://stream.binance.com:9443/ws/btcusdt@trade`):
 * {"e":"trade","E":1700000000123,"s":"BTCUSDT","t":1,"p":"37000.10","q":"0.0012","T":1700000000120,"m":true}
 * Other fields are ignored; a price or quantity that is no plain decimal fails the message.
 */
const BinanceTrade = z.object({
  e: z.literal("trade"),
  s: z.string(),
  p: z.string().transform((p, ctx) => parsePriceE8(p) ?? (ctx.addIssue({ code: "custom", message: "price" }), z.NEVER)),
  q: z.string().transform((q, ctx) => parseQuantityE8(q) ?? (ctx.addIssue({ code: "custom", message: "quantity" }), z.NEVER)),
  T: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  t: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
});

/** A trade of the exchange's stream as a tick; anything else (pings, other events, malformed JSON) is null. */
export function parseBinanceTrade(raw: unknown): FeedTick | null {
  const t = parseJson(raw, BinanceTrade, 4096);
  return t && { symbol: t.s.toUpperCase(), ts_ms: t.T, price_e8: t.p, volume_e8: t.q, trade_id: String(t.t) };
}

function parseQuantityE8(text: string): number | null {
  const m = /^(\d{1,9})(?:\.(\d{1,8}))?$/.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * 1e8 + Number((m[2] ?? "").padEnd(8, "0"));
}

/** The stream URL for a symbol, e.g. "BTC/USDT" → ".../ws/btcusdt@trade". */
export function binanceStreamUrl(base: string, symbol: string): string {
  return `${base.replace(/\/+$/, "")}/ws/${symbol.replace("/", "").toLowerCase()}@trade`;
}

/** A feed symbol as the exchange spells it in messages: "BTC/USDT", "btcusdt" → "BTCUSDT". */
export function feedKey(symbol: string): string {
  return symbol.replace(/[^A-Za-z0-9]/g, "").toUpperCase();
}

/**
 * An upstream message as a tick of the product's own feed symbol, or null. A trade of any other
 * symbol (a misrouted or mixed stream) must never become this product's price.
 */
export function upstreamTick(raw: unknown, feed_symbol: string): FeedTick | null {
  const tick = parseBinanceTrade(raw);
  return tick && tick.symbol === feedKey(feed_symbol) ? tick : null;
}
