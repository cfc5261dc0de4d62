import { describe, expect, it } from "vitest";
import { appEnvOf, feedKind, hasRealFeed, isLocalRun, modeOf, moneyMovementOpen, walletOf } from "../../worker/mode";

const HOSTS = "stream.binance.com:9443,data-stream.binance.vision";
const prod = { APP_ENV: "production", PRICE_FEED_ALLOWED_HOSTS: HOSTS };

describe("modeOf", () => {
  it("production with an allowed exchange feed is live", () => {
    const env = { ...prod, PRICE_FEED: "binance", PRICE_FEED_URL: "wss://stream.binance.com:9443" };
    expect(hasRealFeed(env)).toBe(true);
    expect(modeOf(env)).toBe("live");
    expect(feedKind(env)).toBe("exchange");
    expect(moneyMovementOpen(env)).toBe(true);
    expect(walletOf(env)).toBe("real");
  });

  it.each([
    ["no feed", {}],
    ["the simulation", { PRICE_FEED: "simulation", PRICE_FEED_URL: "wss://stream.binance.com:9443" }],
    ["binance without a URL", { PRICE_FEED: "binance" }],
    ["a host off the list", { PRICE_FEED: "binance", PRICE_FEED_URL: "wss://prices.example.com" }],
    ["plain ws", { PRICE_FEED: "binance", PRICE_FEED_URL: "ws://stream.binance.com:9443" }],
    ["a userinfo trick", { PRICE_FEED: "binance", PRICE_FEED_URL: "wss://stream.binance.com:9443@evil.com" }],
    ["loopback, even with the switch", { PRICE_FEED: "binance", PRICE_FEED_URL: "ws://127.0.0.1:9000", PRICE_FEED_ALLOW_LOOPBACK: "1" }],
  ])("production with %s is unready, never a demo: no prices, real money", (_name, feed) => {
    const env = { ...prod, ...feed };
    expect(hasRealFeed(env)).toBe(false);
    expect(modeOf(env)).toBe("unready");
    // No simulation stands in for the feed, and no demo money appears.
    expect(feedKind(env)).toBe("none");
    expect(walletOf(env)).toBe("real");
    expect(moneyMovementOpen(env)).toBe(true);
  });

  it("production with no allow-list configured is unready", () => {
    expect(modeOf({ APP_ENV: "production", PRICE_FEED: "binance", PRICE_FEED_URL: "wss://stream.binance.com:9443" })).toBe("unready");
  });

  it("demo is chosen by APP_ENV alone: simulated prices, demo money, money movement closed", () => {
    for (const feed of [{}, { PRICE_FEED: "binance", PRICE_FEED_URL: "wss://stream.binance.com:9443", PRICE_FEED_ALLOWED_HOSTS: HOSTS }]) {
      const env = { APP_ENV: "demo", ...feed };
      expect(modeOf(env)).toBe("demo");
      expect(feedKind(env)).toBe("simulation");
      expect(walletOf(env)).toBe("demo");
      expect(moneyMovementOpen(env)).toBe(false);
    }
  });

  it("local and test are local, whatever the feed", () => {
    for (const APP_ENV of ["local", "test"]) {
      expect(modeOf({ APP_ENV })).toBe("local");
      expect(modeOf({ APP_ENV, PRICE_FEED: "binance", PRICE_FEED_URL: "wss://prices.example.com" })).toBe("local");
      expect(moneyMovementOpen({ APP_ENV })).toBe(true);
      expect(isLocalRun({ APP_ENV })).toBe(true);
    }
  });

  it("APP_ENV is an allow-list: anything else is no run at all (the Worker refuses to serve it)", () => {
    for (const APP_ENV of ["prod", "Production", "staging", "", "local ", "demo1"]) {
      expect(appEnvOf({ APP_ENV })).toBeNull();
      // Never a local run: no test switch or development key applies to it.
      expect(isLocalRun({ APP_ENV })).toBe(false);
    }
    expect(appEnvOf({})).toBeNull();
    for (const APP_ENV of ["production", "demo"]) expect(isLocalRun({ APP_ENV })).toBe(false);
  });

  it("a local run with the loopback switch has a real feed (the integration test's fake upstream)", () => {
    expect(hasRealFeed({ APP_ENV: "local", PRICE_FEED: "binance", PRICE_FEED_URL: "ws://127.0.0.1:9000", PRICE_FEED_ALLOW_LOOPBACK: "1" })).toBe(true);
    expect(hasRealFeed({ APP_ENV: "local", PRICE_FEED: "binance", PRICE_FEED_URL: "ws://127.0.0.1:9000" })).toBe(false);
    expect(hasRealFeed({ APP_ENV: "prod", PRICE_FEED: "binance", PRICE_FEED_URL: "ws://127.0.0.1:9000", PRICE_FEED_ALLOW_LOOPBACK: "1" })).toBe(false);
  });
});
