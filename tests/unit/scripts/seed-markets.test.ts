import { describe, expect, it } from "vitest";
import { demoMarketsMissing } from "../../../scripts/seed-demo";

/**
 * The demo seed adds its markets by symbol. It used to add them only to a database with no market
 * at all, so a test that made a market of its own before any seed left the shared test database
 * without BTC/USDT (the quote socket answered 404 in one CI run).
 */
describe("the demo's markets", () => {
  it("are added beside markets of other symbols", () => {
    expect(demoMarketsMissing(new Set(["TST/USDT"])).map((m) => m.symbol)).toEqual(["BTC/USDT", "ETH/USDT"]);
  });

  it("each only once: a symbol already there is not added again", () => {
    expect(demoMarketsMissing(new Set(["BTC/USDT", "TST/USDT"])).map((m) => m.symbol)).toEqual(["ETH/USDT"]);
    expect(demoMarketsMissing(new Set(["BTC/USDT", "ETH/USDT"]))).toEqual([]);
  });
});
