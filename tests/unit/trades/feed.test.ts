import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { foldTick, minuteOf, quoteBlock, resample, type Candle } from "../../../durable-objects/quotes/candles";
import { binanceStreamUrl, cryptoRandom, parseBinanceTrade, seededRandom, seedOf, SimulatedFeed, simRandom, upstreamTick, type FeedTick, type SimState } from "../../../durable-objects/quotes/feed";
import { allowedHosts, upstreamUrlAllowed } from "../../../worker/domain/quotes/upstream-url";

const walk = (f: SimulatedFeed, steps: number) => Array.from({ length: steps }, (_, i) => f.next((i + 1) * 1000).price_e8);

describe("SimulatedFeed", () => {
  it("two feeds started alike follow different paths (nothing public predicts the next tick)", () => {
    const a = walk(SimulatedFeed.start("BTC/USDT", 60_000e8, 0), 50);
    const b = walk(SimulatedFeed.start("BTC/USDT", 60_000e8, 0), 50);
    expect(a).not.toEqual(b);
    // Not just one early difference: the paths disagree almost everywhere.
    expect(a.filter((p, i) => p !== b[i]).length).toBeGreaterThan(45);
  });

  it("a snapshot holds only where the walk stands, no generator state", () => {
    const f = SimulatedFeed.start("BTC/USDT", 60_000e8, 0);
    const t = f.next(1000);
    expect(f.snapshot).toEqual({ price_e8: t.price_e8, last_ts_ms: 1000 });
    // Two feeds resumed from the same snapshot still go their own ways.
    expect(walk(new SimulatedFeed("BTC/USDT", f.snapshot), 20)).not.toEqual(walk(new SimulatedFeed("BTC/USDT", f.snapshot), 20));
  });

  it("a state saved with an old generator field resumes from its price and time only", () => {
    const legacy = { rng: 12345, price_e8: 50_000e8, last_ts_ms: 5000 } as SimState;
    expect(new SimulatedFeed("BTC/USDT", legacy).snapshot).toEqual({ price_e8: 50_000e8, last_ts_ms: 5000 });
  });

  it("the same test seed gives the same walk; another seed another", () => {
    const seeded = (seed: string) => SimulatedFeed.start("BTC/USDT", 60_000e8, 0, 1_000_000, seededRandom(seedOf(seed)));
    expect(walk(seeded("alpha"), 200)).toEqual(walk(seeded("alpha"), 200));
    expect(walk(seeded("alpha"), 200)).not.toEqual(walk(seeded("beta"), 200));
  });

  it("SIM_SEED is honoured only under APP_ENV=test", () => {
    const draws = (env: { APP_ENV: string; SIM_SEED?: string }) => {
      const r = simRandom(env);
      return Array.from({ length: 8 }, () => r());
    };
    expect(draws({ APP_ENV: "test", SIM_SEED: "7" })).toEqual(draws({ APP_ENV: "test", SIM_SEED: "7" }));
    for (const APP_ENV of ["production", "local"]) expect(draws({ APP_ENV, SIM_SEED: "7" })).not.toEqual(draws({ APP_ENV, SIM_SEED: "7" }));
    expect(draws({ APP_ENV: "test" })).not.toEqual(draws({ APP_ENV: "test" }));
  });

  it("the CSPRNG source gives uniform numbers in [0, 1) across buffer refills", () => {
    const r = cryptoRandom(16);
    const xs = Array.from({ length: 20_000 }, () => r());
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.01); // sd of the mean is 0.002
    expect(new Set(xs).size).toBeGreaterThan(19_990);
  });

  it("steps have mean ~0 and the configured volatility (no drift a trader could bet on)", () => {
    const f = SimulatedFeed.start("BTC/USDT", 60_000e8, 0);
    const n = 20_000;
    const steps: number[] = [];
    let prev = 60_000e8;
    for (let i = 1; i <= n; i++) {
      const p = f.next(i * 1000).price_e8;
      steps.push(Math.log(p / prev));
      prev = p;
    }
    const mean = steps.reduce((s, x) => s + x, 0) / n;
    const sd = Math.sqrt(steps.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
    // sigma 1e-4 with a 2 % chance of a 4x burst: sd = 1e-4 * sqrt(0.98 + 0.02 * 16) ≈ 1.14e-4.
    expect(sd).toBeGreaterThan(1.0e-4);
    expect(sd).toBeLessThan(1.3e-4);
    expect(Math.abs(mean)).toBeLessThan((5 * sd) / Math.sqrt(n));
    const ups = steps.filter((x) => x > 0).length;
    expect(Math.abs(ups / n - 0.5)).toBeLessThan(0.03);
  });

  it("moves like a market: prices change, stay on the tick grid, positive, and rarely jump", () => {
    const f = SimulatedFeed.start("BTC/USDT", 60_000e8, 0);
    let prev = 60_000e8;
    let changes = 0;
    for (let i = 1; i <= 3600; i++) {
      const t = f.next(i * 1000);
      expect(t.price_e8 % 1_000_000).toBe(0);
      expect(t.price_e8).toBeGreaterThan(0);
      expect(Math.abs(t.price_e8 - prev) / prev).toBeLessThan(0.02);
      if (t.price_e8 !== prev) changes++;
      prev = t.price_e8;
    }
    expect(changes).toBeGreaterThan(3000);
    expect(prev / 60_000e8).toBeGreaterThan(0.8);
    expect(prev / 60_000e8).toBeLessThan(1.2);
  });
});

describe("Binance trade messages", () => {
  it("parses a trade", () => {
    const msg = JSON.stringify({ e: "trade", E: 1700000000123, s: "BTCUSDT", t: 1, p: "37000.10", q: "0.0012", T: 1700000000120, m: true });
    expect(parseBinanceTrade(msg)).toEqual({ symbol: "BTCUSDT", ts_ms: 1700000000120, price_e8: 3_700_010_000_000, volume_e8: 120_000, trade_id: "1" });
    // The trade id is what the log names the tick by: a message without one is not a trade.
    expect(parseBinanceTrade(JSON.stringify({ ...JSON.parse(msg), t: undefined }))).toBeNull();
  });

  it.each([["{}"], ['{"e":"aggTrade"}'], ["not json"], ['{"e":"trade","s":"BTCUSDT","p":"-1","q":"1","T":1}'], ['{"e":"trade","s":"BTCUSDT","p":"1e3","q":"1","T":1}'], [""]])("ignores %s", (m) => {
    expect(parseBinanceTrade(m)).toBeNull();
  });

  it("never throws on arbitrary input", () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.json()), (m) => void parseBinanceTrade(m)));
  });

  it("builds the stream URL", () => {
    expect(binanceStreamUrl("wss://stream.binance.com:9443/", "BTC/USDT")).toBe("wss://stream.binance.com:9443/ws/btcusdt@trade");
  });

  it("keeps only trades of the product's own feed symbol", () => {
    const trade = (s: string, p = "37000.10") => JSON.stringify({ e: "trade", E: 1, s, t: 1, p, q: "0.5", T: 1700000000120, m: true });
    expect(upstreamTick(trade("BTCUSDT"), "BTCUSDT")?.price_e8).toBe(3_700_010_000_000);
    expect(upstreamTick(trade("btcusdt"), "BTCUSDT")?.symbol).toBe("BTCUSDT");
    expect(upstreamTick(trade("BTCUSDT"), "BTC/USDT")).not.toBeNull();
    expect(upstreamTick(trade("ETHUSDT", "999999.00"), "BTCUSDT")).toBeNull();
    expect(upstreamTick(trade("BTCUSDTX"), "BTCUSDT")).toBeNull();
    expect(upstreamTick(trade(""), "BTCUSDT")).toBeNull();
    expect(upstreamTick("not json", "BTCUSDT")).toBeNull();
    expect(upstreamTick(new ArrayBuffer(4), "BTCUSDT")).toBeNull();
  });
});

describe("upstream allow-list", () => {
  const hosts = allowedHosts("stream.binance.com:9443, data-stream.binance.vision");
  const allowed = (url: string, app_env = "production", loopback = false) => upstreamUrlAllowed(url, hosts, app_env, loopback);

  it("parses the configured list", () => {
    expect(allowedHosts(" Stream.Binance.com:9443 ,,data-stream.binance.vision:443 ")).toEqual(["stream.binance.com:9443", "data-stream.binance.vision"]);
    expect(allowedHosts(undefined)).toEqual([]);
  });

  it("accepts wss to an allowed host and port", () => {
    expect(allowed("wss://stream.binance.com:9443")).toBe(true);
    expect(allowed("wss://stream.binance.com:9443/ws/btcusdt@trade")).toBe(true);
    expect(allowed("wss://data-stream.binance.vision/ws/btcusdt@trade")).toBe(true);
    expect(allowed("wss://data-stream.binance.vision:443")).toBe(true);
    expect(allowed("WSS://STREAM.BINANCE.COM:9443/ws")).toBe(true);
    expect(upstreamUrlAllowed("wss://stream.binance.com:9443", "STREAM.binance.com:9443", "production")).toBe(true);
  });

  it.each([
    ["http://stream.binance.com:9443"],
    ["https://stream.binance.com:9443"],
    ["ws://stream.binance.com:9443"],
    ["wss://evil.com:9443"],
    ["wss://stream.binance.com.evil.com:9443"],
    ["wss://evil-stream.binance.com:9443"],
    ["wss://stream.binance.com:9443@evil.com"],
    ["wss://stream.binance.com@evil.com:9443"],
    ["wss://user:pass@stream.binance.com:9443"],
    ["wss://stream.binance.com"],
    ["wss://stream.binance.com:443"],
    ["wss://stream.binance.com:9444"],
    ["wss://data-stream.binance.vision:9443"],
    ["wss://stream.binance.com:9443/ws?redirect=wss://evil.com"],
    ["wss://stream.binance.com:9443/#x"],
    ["wss://127.0.0.1:9443"],
    ["ws://127.0.0.1:9443"],
    ["stream.binance.com:9443"],
    ["not a url"],
    [""],
  ])("refuses %s", (url) => {
    expect(allowed(url)).toBe(false);
  });

  it("nothing is allowed with an empty list", () => {
    expect(upstreamUrlAllowed("wss://stream.binance.com:9443", [], "production")).toBe(false);
  });

  it("plain ws on 127.0.0.1 only outside production and only with the loopback switch", () => {
    expect(allowed("ws://127.0.0.1:4567", "local", true)).toBe(true);
    expect(allowed("ws://127.0.0.1:4567/ws/btcusdt@trade", "test", true)).toBe(true);
    expect(allowed("ws://127.0.0.1:4567", "production", true)).toBe(false);
    expect(allowed("ws://127.0.0.1:4567", "local", false)).toBe(false);
    expect(allowed("ws://localhost:4567", "local", true)).toBe(false);
    expect(allowed("ws://127.0.0.2:4567", "local", true)).toBe(false);
    expect(allowed("ws://127.0.0.1", "local", true)).toBe(false);
    expect(allowed("ws://x@127.0.0.1:4567", "local", true)).toBe(false);
    expect(allowed("ws://127.0.0.1:4567@evil.com", "local", true)).toBe(false);
    expect(allowed("http://127.0.0.1:4567", "local", true)).toBe(false);
  });
});

describe("candles", () => {
  const tick = (ts_ms: number, price_e8: number, volume_e8 = 1): FeedTick => ({ symbol: "X", ts_ms, price_e8, volume_e8 });

  it("folds ticks into minute candles", () => {
    let c: Candle | null = null;
    for (const t of [tick(60_000, 10), tick(61_000, 12), tick(62_000, 9), tick(119_999, 11)]) c = foldTick(c, t);
    expect(c).toEqual({ t_ms: 60_000, o: 10, h: 12, l: 9, c: 11, v: 4 });
    expect(foldTick(c, tick(120_000, 5))).toEqual({ t_ms: 120_000, o: 5, h: 5, l: 5, c: 5, v: 1 });
  });

  it("resampling keeps open of the first, close of the last, extremes and total volume", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: 1, maxLength: 200 }), (prices) => {
        let c: Candle | null = null;
        const minutes: Candle[] = [];
        prices.forEach((p, i) => {
          const next = foldTick(c, tick(i * 20_000, p));
          if (c && next.t_ms !== c.t_ms) minutes.push(c);
          c = next;
        });
        minutes.push(c!);
        const hours = resample(minutes, 3600_000);
        expect(hours[0].o).toBe(prices[0]);
        expect(hours[hours.length - 1].c).toBe(prices[prices.length - 1]);
        expect(Math.max(...hours.map((h) => h.h))).toBe(Math.max(...prices));
        expect(Math.min(...hours.map((h) => h.l))).toBe(Math.min(...prices));
        expect(hours.reduce((s, h) => s + h.v, 0)).toBe(prices.length);
      }),
    );
  });

  it("the 24h quote block", () => {
    const candles: Candle[] = [
      { t_ms: minuteOf(0), o: 100, h: 120, l: 90, c: 110, v: 5 },
      { t_ms: minuteOf(60_000), o: 110, h: 130, l: 105, c: 125, v: 7 },
    ];
    expect(quoteBlock(candles, tick(90_000, 125))).toEqual({ price_e8: 125, open_e8: 100, high_e8: 130, low_e8: 90, volume_e8: 12, change_bp: 2500, ts_ms: 90_000 });
  });
});
