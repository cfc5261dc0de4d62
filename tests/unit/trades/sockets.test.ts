import { describe, expect, it } from "vitest";
import { answerPage, closeBack, sendAll, type PageSocket } from "../../../durable-objects/page-sockets";
import { notifyOwner, outcomeNotices, type Channel } from "../../../durable-objects/quotes/notify";
import { QuoteFanout, quoteMessage } from "../../../durable-objects/quotes/sockets";
import type { HubQuote } from "../../../durable-objects/quotes/hub-api";

class FakePage implements PageSocket {
  sent: unknown[] = [];
  closed: [number | undefined, string | undefined] | null = null;
  constructor(private readonly broken = false) {}
  send(text: string | ArrayBuffer) {
    if (this.broken) throw new Error("closing");
    this.sent.push(JSON.parse(String(text)));
  }
  close(code?: number, reason?: string) {
    this.closed = [code, reason];
  }
}

const QUOTE: HubQuote = { price_e8: 100e8, open_e8: 99e8, high_e8: 101e8, low_e8: 98e8, volume_e8: 5e8, change_bp: 101, ts_ms: 5_000, simulated: true };

describe("page sockets", () => {
  it("sends to every page but the one excepted, counting those that got it", () => {
    const pages = [new FakePage(), new FakePage(true), new FakePage()];
    expect(sendAll(pages, [{ type: "balance", reason: "trade" }], pages[2])).toBe(1);
    expect(pages[0].sent).toEqual([{ type: "balance", reason: "trade" }]);
    expect(pages[2].sent).toEqual([]);
  });

  it("answers a ping, hands on a known message, and closes on anything else", () => {
    const page = new FakePage();
    expect(answerPage(page, JSON.stringify({ type: "ping" }), 42)).toEqual({ type: "ping" });
    expect(page.sent).toEqual([{ type: "pong", server_time_ms: 42 }]);
    expect(answerPage(page, JSON.stringify({ type: "changed", reason: "trade" }), 43)).toEqual({ type: "changed", reason: "trade" });
    expect(answerPage(page, "{", 44)).toBeNull();
    expect(page.closed).toEqual([1003, "unsupported message"]);
  });

  it("closes back with the page's code, but never a reserved one", () => {
    const a = new FakePage();
    closeBack(a, 4001);
    expect(a.closed).toEqual([4001, "bye"]);
    for (const code of [1005, 1006]) {
      const b = new FakePage();
      closeBack(b, code);
      expect(b.closed).toEqual([1000, "bye"]);
    }
  });
});

describe("quote channel fan-out", () => {
  it("sends every tick, and the quote block at most every 5 s", async () => {
    const page = new FakePage();
    const fanout = new QuoteFanout(() => [page], async () => QUOTE);
    for (const ts_ms of [5_000, 6_000, 9_999, 10_000]) fanout.tick("BTC/USDT", { symbol: "BTCUSDT", ts_ms, price_e8: 100e8, volume_e8: 0 });
    await new Promise((r) => setTimeout(r, 0));
    const types = page.sent.map((m) => (m as { type: string }).type);
    expect(types.filter((t) => t === "tick")).toHaveLength(4);
    expect(types.filter((t) => t === "quote")).toHaveLength(2);
    expect(page.sent[0]).toEqual({ type: "tick", symbol: "BTC/USDT", price: "100.00", ts: 5_000 });
  });

  it("writes the quote block as exact decimals", () => {
    expect(quoteMessage("BTC/USDT", QUOTE)).toEqual({ type: "quote", symbol: "BTC/USDT", price: "100.00", open: "99.00", high: "101.00", low: "98.00", volume: "5", change_pct: "1.01", ts: 5_000, simulated: true });
  });
});

describe("settlement notices", () => {
  it("tell the owner the last order's result and one balance change, in one call", async () => {
    const calls: [number, unknown][] = [];
    const channelOf = (user_id: number): Channel => ({ publishAll: async (messages) => (calls.push([user_id, messages]), 1) });
    await notifyOwner(channelOf, 7, [
      { order_id: 1, status: "won" },
      { order_id: 2, status: "lost" },
    ]);
    expect(calls).toEqual([[7, outcomeNotices([{ order_id: 2, status: "lost" }])]]);
    expect(outcomeNotices([{ order_id: 2, status: "lost" }])).toEqual([
      { type: "order", order_id: 2, status: "lost" },
      { type: "balance", reason: "trade" },
      { type: "notice" },
    ]);
  });
});
