import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { foldTick, minuteOf, quoteBlock, resample, type Candle } from "../../../durable-objects/quotes/candles";
import { binanceStreamUrl, parseBinanceTrade, SimulatedFeed, type FeedTick } from "../../../durable-objects/quotes/feed";

describe("SimulatedFeed", () => {
  it("is deterministic for a symbol and start", () => {
    const a = SimulatedFeed.start("BTC/USDT", 60_000e8, 0);
    const b = SimulatedFeed.start("BTC/USDT", 60_000e8, 0);
    for (let i = 1; i <= 500; i++) expect(a.next(i * 1000)).toEqual(b.next(i * 1000));
    const c = SimulatedFeed.start("ETH/USDT", 60_000e8, 0);
    expect(c.next(1000)).not.toEqual(SimulatedFeed.start("BTC/USDT", 60_000e8, 0).next(1000));
  });

  it("resumes exactly from a snapshot (a restarted Durable Object continues the same walk)", () => {
    const a = SimulatedFeed.start("BTC/USDT", 60_000e8, 0);
    for (let i = 1; i <= 10; i++) a.next(i * 1000);
    const resumed = new SimulatedFeed("BTC/USDT", a.snapshot);
    for (let i = 11; i <= 50; i++) expect(resumed.next(i * 1000)).toEqual(a.next(i * 1000));
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
    expect(parseBinanceTrade(msg)).toEqual({ symbol: "BTCUSDT", ts_ms: 1700000000120, price_e8: 3_700_010_000_000, volume_e8: 120_000 });
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
