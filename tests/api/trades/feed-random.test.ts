/**
 * The price feed inside workerd: two hubs started alike walk differently (no public state
 * predicts a tick), and a hub on a real-exchange feed whose ticks stopped refuses orders
 * without touching the user's money.
 */
import type { FeedTick } from "../../../durable-objects/quotes/feed";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { HubConfig, QuoteHub } from "../../../durable-objects/quotes/quote-hub";
import { orders } from "../../../worker/db/schema";
import { ensurePlatformInviteCode, registerUser } from "../../../worker/domain/identity/users";
import { platformAccount, userAccount } from "../../../worker/domain/ledger/accounts";
import { postTransfers } from "../../../worker/domain/ledger/transfer";
import { market } from "./market-helpers";
import type { Env } from "../../../worker/env";
import { hubStub } from "../../../worker/quotes";
import { call, db, testEnv, uniqueAccount } from "../helpers";
import { balance, rkey, USDT } from "../money/helpers";


/** The hub as a real-exchange deployment would run it (the api project itself simulates). */
function useFeed(hub: DurableObjectStub<QuoteHub>, feed: Partial<Env>) {
  return runInDurableObject(hub, (instance) => {
    const o = instance as unknown as { env: Env };
    o.env = { ...o.env, PRICE_FEED: "binance", ...feed };
  });
}

/** A user with money, straight through the ledger (this file is about prices, not deposits). */
async function userWith(amount_micro: number) {
  const now = Date.now();
  await ensurePlatformInviteCode(db, "FEEDTEST", now);
  const r = await registerUser(db, { account: uniqueAccount("feed"), password: "secret123", invite_code: "FEEDTEST", lang: null }, now);
  if (r.status !== "ok") throw new Error(`register: ${r.status}`);
  const funded = await postTransfers(db, [{ key: `test:fund:${r.user.id}`, debit: platformAccount("adjustments"), credit: userAccount(r.user.id, "available"), amount_micro, code: "adjustment", ref_type: "test", ref_id: String(r.user.id) }], [], now);
  if (funded.status !== "ok") throw new Error(`fund: ${funded.status}`);
  return { id: r.user.id, token: r.token };
}

/** A tick from the exchange, as the hub's upstream hands it in (the store keeps its latest in memory). */
function addTick(hub: DurableObjectStub<QuoteHub>, ts_ms: number, price_e8: number) {
  return runInDurableObject(hub, (instance) => {
    (instance as unknown as { prices: { ingest(t: FeedTick): unknown } }).prices.ingest({ symbol: "STL/USDT", ts_ms, price_e8, volume_e8: 1e8 });
  });
}

describe("simulated walks", () => {
  it("two hubs started alike on one symbol follow different paths", async () => {
    const config: HubConfig = { symbol: "RND/USDT", feed_symbol: "RNDUSDT", start_price_e8: 60_000e8, tick_size_e8: 1_000_000 };
    const ns = testEnv.QUOTE_HUB;
    const hubs = [ns.get(ns.idFromName("RND/USDT")), ns.get(ns.idFromName("RND/USDT twin"))];
    await Promise.all(hubs.map((h) => h.ensure(config)));

    // The day of history each hub made on start: same start price, different walks.
    const history = await Promise.all(hubs.map((h) => h.candles(60_000, 1500)));
    const closes = history.map((cs) => cs.map((c) => c.c));
    expect(closes[0].length).toBeGreaterThan(1000);
    expect(closes[0]).not.toEqual(closes[1]);

    // And the live ticks.
    // An idle simulation makes a tick when asked, at most one a second: ask until each has three.
    const liveTicks = () => Promise.all(hubs.map(async (h) => (await h.latest(), (await h.ticks(0, Date.now())).map((t) => t.price_e8))));
    await expect.poll(async () => Math.min(...(await liveTicks()).map((l) => l.length)), { timeout: 30_000, interval: 250 }).toBeGreaterThanOrEqual(3);
    const live = await liveTicks();
    expect(live[0].slice(0, 3)).not.toEqual(live[1].slice(0, 3));
  }, 60_000);
});

describe("a real-exchange feed that stopped", () => {
  let PRODUCT_ID = 0;
  const SYMBOL = "STL/USDT";

  beforeAll(async () => {
    PRODUCT_ID = (await market({ symbol: SYMBOL, name: "Stalled coin", feed_symbol: "STLUSDT", quote_tolerance_bp: 50, sort: 10, durations: [{ seconds: 30, profit_rate_bp: 8500, min_stake_micro: 10 * USDT, max_stake_micro: 1000 * USDT }] })).id;
    // No PRICE_FEED_URL: the hub waits for upstream ticks that never come.
    await useFeed(hubStub(testEnv, SYMBOL), {});
  });

  const order = (token: string, lang = "en") =>
    call("/api/order/addorder", { product_id: PRODUCT_ID, direction: "up", amount: "10", seconds: 30, quote_price: "100", client_order_id: rkey("stale"), lang }, { token });

  it("refuses orders with no tick at all (no_price), then with a tick older than 2 s (price_stale), moving no money", async () => {
    const hub = hubStub(testEnv, SYMBOL);
    const u = await userWith(100 * USDT);
    expect((await order(u.token)).data.error).toBe("no_price");

    await addTick(hub, Date.now() - 2_500, 100 * 1e8);
    const stale = await order(u.token);
    expect(stale.code).toBe(0);
    expect(stale.data.error).toBe("price_stale");
    expect(stale.msg).toBe("Prices are not updating right now, so no order was placed. Please try again in a moment.");
    const ja = await order(u.token, "jpn");
    expect(ja.data.error).toBe("price_stale");
    expect(ja.msg).toContain("価格が更新されていない");

    expect(await balance(u.token)).toEqual({ available: 100 * USDT, locked: 0 });
    expect(await db.select().from(orders).where(eq(orders.user_id, u.id))).toEqual([]);

    // The same order at a fresh tick goes through: only the age refused it.
    await addTick(hub, Date.now(), 100 * 1e8);
    const placed = await order(u.token);
    expect(placed.code).toBe(1);
    expect(await balance(u.token)).toEqual({ available: 89.9 * USDT, locked: 10 * USDT });
  });
});

describe("upstream allow-list in the hub", () => {
  afterEach(() => vi.restoreAllMocks());

  async function beat(symbol: string, url: string) {
    const hub = hubStub(testEnv, symbol);
    await useFeed(hub, { PRICE_FEED_URL: url });
    await hub.ensure({ symbol, feed_symbol: symbol.replace("/", ""), start_price_e8: 100 * 1e8, tick_size_e8: 1_000_000 });
    const fetches = vi.spyOn(globalThis, "fetch").mockResolvedValue(new Response("no", { status: 400 }));
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await runDurableObjectAlarm(hub);
    // The beat starts the upstream without waiting for it: wait until it connected or refused (at once when idle; a loaded machine delays it).
    await vi.waitFor(() => expect(fetches.mock.calls.length + errors.mock.calls.length).toBeGreaterThan(0), { timeout: 15_000, interval: 10 });
    return { fetched: fetches.mock.calls.map((c) => String(c[0])), errors: errors.mock.calls.map((c) => c.map(String).join(" ")) };
  }

  it("connects to an allowed wss host", async () => {
    const r = await beat("AOK/USDT", "wss://stream.binance.com:9443");
    expect(r.fetched).toEqual(["https://stream.binance.com:9443/ws/aokusdt@trade"]);
  });

  it("refuses any other upstream: logged, no connection", async () => {
    const r = await beat("BAD/USDT", "wss://stream.binance.com:9443@evil.example");
    expect(r.fetched).toEqual([]);
    expect(r.errors.some((e) => e.includes("evil.example") && e.includes("refused"))).toBe(true);
  });
});
