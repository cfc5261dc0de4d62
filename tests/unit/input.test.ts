import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../worker/api/envelope";
import { parseJsonObject } from "../../worker/api/middleware/input";
import { formatUsdt } from "../../worker/domain/money/units";

describe("JSON body parsing", () => {
  it("returns plain objects and refuses everything else with an ApiError", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (raw) => {
        try {
          const v = parseJsonObject(raw);
          expect(typeof v).toBe("object");
          expect(Array.isArray(v)).toBe(false);
        } catch (e) {
          expect(e).toBeInstanceOf(ApiError);
          expect((e as ApiError).status).toBe(400);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("refuses nesting deeper than 8", () => {
    expect(() => parseJsonObject(JSON.stringify({ a: { b: { c: { d: { e: { f: { g: { h: 1 } } } } } } } }))).not.toThrow();
    expect(() => parseJsonObject(JSON.stringify({ a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } }))).toThrow(ApiError);
  });
});

describe("money display", () => {
  it("formats micro-USDT with integer arithmetic, truncating below a cent", () => {
    expect(formatUsdt(10_000_000_000, "en")).toBe("10,000.00");
    expect(formatUsdt(1_239_999, "en")).toBe("1.23");
    expect(formatUsdt(0, "en")).toBe("0.00");
    expect(formatUsdt(-5_500_000, "en")).toBe("-5.50");
    expect(formatUsdt(1_234_560_000, "de")).toBe("1.234,56");
  });

  it("never loses whole units, for any safe amount", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (micro) => {
        const shown = formatUsdt(micro, "en").replace(/,/g, "");
        const [whole, cents] = shown.split(".");
        expect(BigInt(whole)).toBe(BigInt(micro) / 1_000_000n);
        expect(cents).toBe(String(micro % 1_000_000).padStart(6, "0").slice(0, 2));
      }),
    );
  });
});
