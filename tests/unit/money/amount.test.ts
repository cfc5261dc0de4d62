import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatAmount, MAX_AMOUNT_MICRO, parseAmount } from "../../../worker/domain/money/units";

describe("parseAmount", () => {
  it.each([
    ["1", 1_000_000],
    ["0.01", 10_000],
    ["12.3", 12_300_000],
    ["12.34", 12_340_000],
    [" 10000 ", 10_000_000_000],
    [12.34, 12_340_000],
    [5, 5_000_000],
  ])("%j → %d micro", (input, micro) => {
    expect(parseAmount(input)).toEqual({ status: "ok", amount_micro: micro });
  });

  it.each([
    ["1.234", "too_many_decimals"],
    ["0", "not_positive"],
    ["0.00", "not_positive"],
    ["-1", "invalid"],
    ["1e3", "invalid"],
    ["abc", "invalid"],
    ["", "invalid"],
    ["1,5", "invalid"],
    [".5", "invalid"],
    [Number.NaN, "invalid"],
    [1e21, "invalid"],
    ["1000000001", "too_large"],
    [null, "invalid"],
    [{}, "invalid"],
  ])("%j is refused as %s", (input, status) => {
    expect(parseAmount(input).status).toBe(status);
  });

  it("round-trips every 2-decimal amount exactly, as string and as JSON number", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_AMOUNT_MICRO / 10_000 }), (cents) => {
        const micro = cents * 10_000;
        const text = formatAmount(micro);
        expect(parseAmount(text)).toEqual({ status: "ok", amount_micro: micro });
        expect(parseAmount(Number(text))).toEqual({ status: "ok", amount_micro: micro });
      }),
      { numRuns: 5000 },
    );
  });

  it("never returns anything but a positive safe integer", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.double(), fc.integer()), (input) => {
        const r = parseAmount(input);
        if (r.status === "ok") {
          expect(Number.isSafeInteger(r.amount_micro)).toBe(true);
          expect(r.amount_micro).toBeGreaterThan(0);
          expect(r.amount_micro).toBeLessThanOrEqual(MAX_AMOUNT_MICRO);
        }
      }),
      { numRuns: 5000 },
    );
  });
});

describe("formatAmount", () => {
  it("truncates to cents with integer arithmetic", () => {
    expect(formatAmount(1_239_999)).toBe("1.23");
    expect(formatAmount(-1_500_000)).toBe("-1.50");
    expect(formatAmount(0)).toBe("0.00");
    expect(formatAmount(7_000_001, 6)).toBe("7.000001");
  });

  it("refuses non-integers", () => {
    expect(() => formatAmount(1.5)).toThrow();
  });
});
