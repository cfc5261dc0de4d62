import { describe, expect, it } from "vitest";
import { SILENT_AFTER_MS, UpstreamFeed, type UpstreamSocket } from "../../../durable-objects/quotes/upstream";
import type { FeedTick } from "../../../durable-objects/quotes/feed";

const URL_BASE = "wss://stream.binance.com:9443";
const ENV = { APP_ENV: "production", PRICE_FEED_URL: URL_BASE, PRICE_FEED_ALLOWED_HOSTS: "stream.binance.com:9443" };
const STREAM = `${URL_BASE}/ws/btcusdt@trade`;

class FakeSocket implements UpstreamSocket {
  closed: { code?: number; reason?: string } | null = null;
  private listeners = new Map<string, ((e: { data: unknown }) => void)[]>();
  addEventListener(type: string, listener: (e: { data: unknown }) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close(code?: number, reason?: string) {
    this.closed = { code, reason };
  }
  emit(type: "message" | "close" | "error", data?: unknown) {
    for (const l of this.listeners.get(type) ?? []) l({ data });
  }
  trade(ts_ms: number, s = "BTCUSDT") {
    this.emit("message", JSON.stringify({ e: "trade", s, t: ts_ms, p: "100.00", q: "1", T: ts_ms }));
  }
}

/** The feed with a hand-moved clock, timers run by hand, and opens answered by the test. */
function harness(opts: { random?: number } = {}) {
  let now = 1_000_000;
  const opens: { url: string; resolve: (s: FakeSocket) => void; reject: (e: Error) => void }[] = [];
  const timers: { at: number; fn: () => void }[] = [];
  const ticks: FeedTick[] = [];
  const logs: string[] = [];
  const feed = new UpstreamFeed({
    open: (url) => new Promise((resolve, reject) => opens.push({ url, resolve, reject })),
    now: () => now,
    later: (fn, ms) => void timers.push({ at: now + ms, fn }),
    random: () => opts.random ?? 1,
    onTick: (t) => ticks.push(t),
    log: (event, fields) => void logs.push(`${event} ${JSON.stringify(fields ?? {})}`),
  });
  const flush = () => new Promise((r) => setTimeout(r, 0));
  /** Moves the clock, running the timers that come due. */
  const advance = async (ms: number) => {
    now += ms;
    for (const t of timers.splice(0).sort((a, b) => a.at - b.at)) {
      if (t.at <= now) t.fn();
      else timers.push(t);
    }
    await flush();
  };
  /** Answers the latest open with a fresh socket. */
  const accept = async () => {
    const s = new FakeSocket();
    opens[opens.length - 1].resolve(s);
    await flush();
    return s;
  };
  return { feed, opens, timers, ticks, logs, advance, accept, flush, now: () => now };
}

describe("UpstreamFeed", () => {
  it("opens the allowed stream once, and hands on only the product's own trades", async () => {
    const h = harness();
    h.feed.keep(ENV, "BTC/USDT");
    h.feed.keep(ENV, "BTC/USDT");
    expect(h.opens.map((o) => o.url)).toEqual([STREAM]);
    const s = await h.accept();
    expect(h.feed.connected).toBe(true);
    s.trade(1);
    s.trade(2, "ETHUSDT");
    s.emit("message", "not json");
    expect(h.ticks.map((t) => [t.symbol, t.ts_ms])).toEqual([["BTCUSDT", 1]]);
  });

  it("refuses an upstream off the allow-list, logged once, without connecting", () => {
    const h = harness();
    const bad = { ...ENV, PRICE_FEED_URL: "wss://stream.binance.com:9443@evil.example" };
    h.feed.keep(bad, "BTC/USDT");
    h.feed.keep(bad, "BTC/USDT");
    expect(h.opens).toEqual([]);
    expect(h.logs).toHaveLength(1);
    expect(h.logs[0]).toContain("evil.example");
  });

  it("does nothing without a feed URL", () => {
    const h = harness();
    h.feed.keep({ APP_ENV: "production" }, "BTC/USDT");
    expect(h.opens).toEqual([]);
  });

  it("reconnects after drops with growing waits, and starts over once trades flow", async () => {
    const h = harness({ random: 1 });
    h.feed.keep(ENV, "BTC/USDT");
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const s = await h.accept();
      s.emit("close");
      expect(h.feed.connected).toBe(false);
      const due = h.timers[h.timers.length - 1].at - h.now();
      waits.push(due);
      // Not a moment early: neither the timer nor a beat reconnects before the wait is over.
      await h.advance(due - 1);
      h.feed.keep(ENV, "BTC/USDT");
      expect(h.opens).toHaveLength(i + 1);
      await h.advance(1);
      expect(h.opens).toHaveLength(i + 2);
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000]);
    const s = await h.accept();
    s.trade(5);
    s.emit("close");
    expect(h.timers[h.timers.length - 1].at - h.now()).toBe(1_000);
  });

  it("counts a refused upgrade as a failure", async () => {
    const h = harness({ random: 0 });
    h.feed.keep(ENV, "BTC/USDT");
    h.opens[0].reject(new Error("upstream refused: 502"));
    await h.flush();
    expect(h.logs.join()).toContain("feed.upstream_connect_failed");
    await h.advance(500);
    expect(h.opens).toHaveLength(2);
  });

  it("takes a silent stream for a drop: closes it and connects again", async () => {
    const h = harness({ random: 1 });
    h.feed.keep(ENV, "BTC/USDT");
    const s = await h.accept();
    s.trade(1);
    await h.advance(SILENT_AFTER_MS - 1);
    h.feed.keep(ENV, "BTC/USDT");
    expect(s.closed).toBeNull();
    await h.advance(1);
    h.feed.keep(ENV, "BTC/USDT");
    expect(s.closed?.reason).toBe("silent");
    // Its late close event changes nothing: one failure, one reconnect.
    s.emit("close");
    await h.advance(1_000);
    expect(h.opens).toHaveLength(2);
    const next = await h.accept();
    next.trade(2);
    expect(h.ticks.map((t) => t.ts_ms)).toEqual([1, 2]);
  });

  it("gives up on a connect that never answers, and closes its late socket", async () => {
    const h = harness({ random: 1 });
    h.feed.keep(ENV, "BTC/USDT");
    await h.advance(SILENT_AFTER_MS);
    h.feed.keep(ENV, "BTC/USDT");
    const late = new FakeSocket();
    h.opens[0].resolve(late);
    await h.flush();
    expect(late.closed?.reason).toBe("abandoned");
    expect(h.feed.connected).toBe(false);
    await h.advance(1_000);
    expect(h.opens).toHaveLength(2);
  });

  it("switches streams at once when the product's feed symbol changes", async () => {
    const h = harness();
    h.feed.keep(ENV, "BTC/USDT");
    const s = await h.accept();
    h.feed.keep(ENV, "ETH/USDT");
    expect(s.closed?.reason).toBe("feed symbol changed");
    expect(h.opens.map((o) => o.url)).toEqual([STREAM, `${URL_BASE}/ws/ethusdt@trade`]);
    // The old stream's trades and close no longer count.
    s.trade(9);
    s.emit("close");
    const eth = await h.accept();
    eth.trade(10, "ETHUSDT");
    expect(h.ticks.map((t) => t.symbol)).toEqual(["ETHUSDT"]);
    expect(h.feed.connected).toBe(true);
  });
});
