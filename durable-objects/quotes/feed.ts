/**
 * Price feeds. `QuoteHub` (one Durable Object per symbol) takes its ticks from a PriceFeed:
 * - SimulatedFeed: a seeded random walk, deterministic for a seed (default locally; pages show
 *   "simulated prices" while it is in use);
 * - the Binance adapter: parses the exchange's public trade stream (`<symbol>@trade`).
 * Prices are integers scaled by 10^8 (see worker/domain/trades/settlement.ts).
 */
import { parsePriceE8 } from "../../worker/domain/trades/settlement";

export type FeedTick = { symbol: string; ts_ms: number; price_e8: number; volume_e8: number };

export type FeedKind = "simulation" | "binance";

/** mulberry32: a tiny, fast, seedable PRNG; the walk is reproducible from its state. */
function mulberry32(state: number): [number, number] {
  let t = (state + 0x6d2b79f5) | 0;
  const next = t;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return [((t ^ (t >>> 14)) >>> 0) / 4294967296, next];
}

export function seedOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h | 0;
}

export type SimState = { rng: number; price_e8: number; last_ts_ms: number };

/**
 * A geometric random walk with per-second volatility `sigma` (0.0001 ≈ 3 % a day, about what
 * BTC does) and occasional bursts, rounded
 * to the symbol's tick size, so charts move like a market. Prices stay within [floor, ∞).
 */
export class SimulatedFeed {
  constructor(
    readonly symbol: string,
    private state: SimState,
    private readonly opts: { sigma: number; tick_size_e8: number; floor_e8: number } = { sigma: 0.0001, tick_size_e8: 1_000_000, floor_e8: 1_000_000 },
  ) {}

  static start(symbol: string, price_e8: number, ts_ms: number, tick_size_e8 = 1_000_000): SimulatedFeed {
    return new SimulatedFeed(symbol, { rng: seedOf(symbol), price_e8, last_ts_ms: ts_ms }, { sigma: 0.0001, tick_size_e8, floor_e8: tick_size_e8 });
  }

  get snapshot(): SimState {
    return { ...this.state };
  }

  private random(): number {
    const [r, next] = mulberry32(this.state.rng);
    this.state.rng = next;
    return r;
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
 * Anything else (pings, other events, malformed JSON) is ignored.
 */
export function parseBinanceTrade(raw: unknown): FeedTick | null {
  if (typeof raw !== "string" || raw.length > 4096) return null;
  let m: unknown;
  try {
    m = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!m || typeof m !== "object") return null;
  const o = m as Record<string, unknown>;
  if (o.e !== "trade" || typeof o.s !== "string" || typeof o.p !== "string" || typeof o.q !== "string" || typeof o.T !== "number") return null;
  const price_e8 = parsePriceE8(o.p);
  const volume_e8 = parseQuantityE8(o.q);
  if (price_e8 === null || volume_e8 === null || !Number.isSafeInteger(o.T) || o.T <= 0) return null;
  return { symbol: o.s.toUpperCase(), ts_ms: o.T, price_e8, volume_e8 };
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
