import { describe, expect, it } from "vitest";
import { hasRealFeed, modeOf, moneyMovementOpen } from "../../worker/mode";

const HOSTS = "stream.binance.com:9443,data-stream.binance.vision";
const prod = { APP_ENV: "production", PRICE_FEED_ALLOWED_HOSTS: HOSTS };

describe("modeOf", () => {
  it("production with an allowed exchange feed is live", () => {
    const env = { ...prod, PRICE_FEED: "binance", PRICE_FEED_URL: "wss://stream.binance.com:9443" };
    expect(hasRealFeed(env)).toBe(true);
    expect(modeOf(env)).toBe("live");
    expect(moneyMovementOpen(env)).toBe(true);
  });

  it.each([
    ["no feed", {}],
    ["the simulation", { PRICE_FEED: "simulation", PRICE_FEED_URL: "wss://stream.binance.com:9443" }],
    ["binance without a URL", { PRICE_FEED: "binance" }],
    ["a host off the list", { PRICE_FEED: "binance", PRICE_FEED_URL: "wss://prices.example.com" }],
    ["plain ws", { PRICE_FEED: "binance", PRICE_FEED_URL: "ws://stream.binance.com:9443" }],
    ["a userinfo trick", { PRICE_FEED: "binance", PRICE_FEED_URL: "wss://stream.binance.com:9443@evil.com" }],
    ["loopback, even with the switch", { PRICE_FEED: "binance", PRICE_FEED_URL: "ws://127.0.0.1:9000", PRICE_FEED_ALLOW_LOOPBACK: "1" }],
  ])("production with %s is a demo", (_name, feed) => {
    const env = { ...prod, ...feed };
    expect(hasRealFeed(env)).toBe(false);
    expect(modeOf(env)).toBe("demo");
    expect(moneyMovementOpen(env)).toBe(false);
  });

  it("production with no allow-list configured is a demo", () => {
    expect(modeOf({ APP_ENV: "production", PRICE_FEED: "binance", PRICE_FEED_URL: "wss://stream.binance.com:9443" })).toBe("demo");
  });

  it("anything but production is local, whatever the feed", () => {
    for (const APP_ENV of ["local", "test"]) {
      expect(modeOf({ APP_ENV })).toBe("local");
      expect(modeOf({ APP_ENV, PRICE_FEED: "binance", PRICE_FEED_URL: "wss://prices.example.com" })).toBe("local");
      expect(moneyMovementOpen({ APP_ENV })).toBe(true);
    }
  });

  it("a local run with the loopback switch has a real feed (the integration test's fake upstream)", () => {
    expect(hasRealFeed({ APP_ENV: "local", PRICE_FEED: "binance", PRICE_FEED_URL: "ws://127.0.0.1:9000", PRICE_FEED_ALLOW_LOOPBACK: "1" })).toBe(true);
    expect(hasRealFeed({ APP_ENV: "local", PRICE_FEED: "binance", PRICE_FEED_URL: "ws://127.0.0.1:9000" })).toBe(false);
  });
});
