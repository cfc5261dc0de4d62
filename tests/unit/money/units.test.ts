import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatAmount,
  formatPercentText,
  parsePercentBp,
  formatAmountExact,
  formatBp,
  formatRate,
  formatChangePercent,
  formatPrice,
  formatPriceE8,
  formatSigned,
  formatUsdt,
  formatUsdtExact,
  MAX_AMOUNT_MICRO,
  parseAmount,
  parseAmountExact,
  parsePriceE8,
} from "../../../worker/domain/money/units";

const CENT = 10_000;
/** The en display back to micro-USDT (en groups with "," only), to compare with the value shown. */
const shownMicro = (text: string) => parseAmountExact(text.replace(/,/g, ""));

describe("Intl.NumberFormat keeps a decimal string exact and truncates", () => {
  it("formats the string, not a float, and cuts instead of rounding", () => {
    const nf = new Intl.NumberFormat("de", { minimumFractionDigits: 2, maximumFractionDigits: 2, roundingMode: "trunc" } as Intl.NumberFormatOptions);
    expect((nf.format as unknown as (v: string) => string)("1234567.899")).toBe("1.234.567,89");
    // 2^53 + 1 as a float would print as ...992.
    expect((nf.format as unknown as (v: string) => string)("9007199254740993.999")).toBe("9.007.199.254.740.993,99");
  });
});

describe("formatUsdt (display, cut to the cent)", () => {
  it.each([
    ["en", "1,234,567.89"],
    ["de", "1.234.567,89"],
    ["ja", "1,234,567.89"],
    ["th", "1,234,567.89"],
    ["vi", "1.234.567,89"],
  ])("%s groups and separates for the locale", (locale, text) => {
    expect(formatUsdt(1_234_567_899_999, locale)).toBe(text);
  });

  it("never rounds up, negatives included (toward zero)", () => {
    expect(formatUsdt(1_239_999, "en")).toBe("1.23");
    expect(formatUsdt(-1_239_999, "en")).toBe("-1.23");
    expect(formatUsdt(-5_500_000, "de")).toBe("-5,50");
    expect(formatUsdt(999_999, "en")).toBe("0.99");
  });

  it("takes other digit counts", () => {
    expect(formatUsdt(1_000_999_999, "en", { digits: 0 })).toBe("1,000");
    expect(formatUsdt(1_234_567, "de", { digits: 6 })).toBe("1,234567");
  });

  it("stays exact for values near 2^53", () => {
    expect(formatUsdt(Number.MAX_SAFE_INTEGER, "en")).toBe("9,007,199,254.74");
    expect(formatUsdt(-Number.MAX_SAFE_INTEGER, "de")).toBe("-9.007.199.254,74");
    expect(formatUsdtExact(Number.MAX_SAFE_INTEGER, "en")).toBe("9,007,199,254.740991");
    expect(formatAmountExact(Number.MAX_SAFE_INTEGER)).toBe("9007199254.740991");
  });

  it("never shows more than the value, and less by under a cent (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (micro) => {
        const shown = shownMicro(formatUsdt(micro, "en"));
        expect(shown).not.toBeNull();
        const lost = Math.abs(micro) - Math.abs(shown!);
        expect(lost).toBeGreaterThanOrEqual(0);
        expect(lost).toBeLessThan(CENT);
      }),
    );
  });

  it("refuses what is not a safe integer instead of printing a guess", () => {
    expect(() => formatUsdt(2 ** 53, "en")).toThrow();
    expect(() => formatUsdt(1.5, "en")).toThrow();
  });
});

describe("exact forms (console, statements, API)", () => {
  it.each([
    [1_000_000, "1.00", "1,00"],
    [5_000, "0.005", "0,005"],
    [1_234_567, "1.234567", "1,234567"],
    [-3_000_000, "-3.00", "-3,00"],
    [0, "0.00", "0,00"],
  ])("%d → %s / %s", (micro, plain, de) => {
    expect(formatAmountExact(micro)).toBe(plain);
    expect(formatUsdtExact(micro, "de")).toBe(de);
    expect(parseAmountExact(plain)).toBe(micro);
  });

  it("signs with ASCII + and -", () => {
    expect(formatSigned(12_500_000, "en")).toBe("+12.50");
    expect(formatSigned(-3_000_000, "en")).toBe("-3.00");
    expect(formatSigned(0, "en")).toBe("0.00");
  });

  it("reads back only exact amounts", () => {
    expect(parseAmountExact("-185.5")).toBe(-185_500_000);
    expect(parseAmountExact("0.000001")).toBe(1);
    for (const bad of ["1.0000001", "1,5", "abc", "", "1e3", null, undefined]) expect(parseAmountExact(bad)).toBeNull();
  });
});

describe("typed amounts: parse(format(x)) is x for every 2-decimal amount", () => {
  it("round-trips (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_AMOUNT_MICRO / CENT }), (cents) => {
        const micro = cents * CENT;
        expect(parseAmount(formatAmount(micro))).toEqual({ status: "ok", amount_micro: micro });
        expect(parseAmountExact(formatAmountExact(micro))).toBe(micro);
      }),
    );
  });
});

describe("formatBp", () => {
  it.each([
    [8500, "en", "85"],
    [150, "en", "1.5"],
    [150, "de", "1,5"],
    [5, "en", "0.05"],
    [0, "en", "0"],
  ])("%d bp in %s → %s", (bp, locale, text) => {
    expect(formatBp(bp, locale)).toBe(text);
  });

  it("in the locale's percent form with 2 decimals", () => {
    expect(formatBp(50, "en", { percent: true })).toBe("0.50%");
    expect(formatBp(10_000, "en", { percent: true })).toBe("100.00%");
    expect(formatBp(50, "de", { percent: true })).toMatch(/^0,50\s%$/);
  });
});

describe("formatRate", () => {
  it("a rate a user reads, in the locale's percent form with only the decimals it has", () => {
    expect(formatRate(8000, "en")).toBe("80%");
    expect(formatRate(8550, "en")).toBe("85.5%");
    expect(formatRate(5, "en")).toBe("0.05%");
    // Not "80%" with the sign glued on by hand: German puts a (narrow) space before it.
    expect(formatRate(8000, "de")).toMatch(/^80\s%$/);
    expect(formatRate(8550, "de")).toMatch(/^85,5\s%$/);
  });
});

describe("formatChangePercent", () => {
  it("a price change in the locale's percent form, with its sign", () => {
    expect(formatChangePercent("1.23", "en")).toBe("+1.23%");
    expect(formatChangePercent("1.23", "de")).toBe("+1,23\u00a0%");
    expect(formatChangePercent("-0.50", "en")).toBe("-0.50%");
    expect(formatChangePercent("-12.5", "de")).toBe("-12,50\u00a0%");
    expect(formatChangePercent("1234.56", "en")).toBe("+1,234.56%");
  });

  it("no sign at zero, even a rounded-away negative one; -- for nothing or nonsense", () => {
    expect(formatChangePercent("0.00", "en")).toBe("0.00%");
    expect(formatChangePercent("-0.00", "de")).toBe("0,00\u00a0%");
    for (const none of [null, undefined, "", "abc", "1e3", "+1.2"]) expect(formatChangePercent(none, "en")).toBe("--");
  });

  it("exact: the percent digits are the API's digits, whatever they are", () => {
    fc.assert(
      fc.property(fc.integer({ min: -99_999_999, max: 99_999_999 }), (hundredths) => {
        const text = (hundredths / 100).toFixed(2);
        const shown = formatChangePercent(text, "en");
        expect(shown.replace(/[+,%]/g, "")).toBe(hundredths === 0 ? "0.00" : text.replace(/^-0\.00$/, "0.00"));
      }),
    );
  });
});

describe("prices", () => {
  it("keep every decimal they came with and group for the locale", () => {
    expect(formatPrice("67012.5", "en")).toBe("67,012.5");
    expect(formatPrice("67012.5", "de")).toBe("67.012,5");
    expect(formatPrice("0.00001234", "vi")).toBe("0,00001234");
    expect(formatPrice("abc", "en")).toBe("--");
    expect(formatPrice(null, "en")).toBe("--");
  });

  it("e8 integers round-trip through text (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (e8) => {
        expect(parsePriceE8(formatPriceE8(e8))).toBe(e8);
      }),
    );
  });
});

describe("percent text", () => {
  it("turns basis points into the API's percent text and back", () => {
    expect(formatPercentText(68)).toBe("0.68");
    expect(formatPercentText(100)).toBe("1");
    expect(formatPercentText(150)).toBe("1.5");
    expect(formatPercentText(0)).toBe("0");
    expect(parsePercentBp("0.68")).toBe(68);
    expect(parsePercentBp(" 1 ")).toBe(100);
    expect(parsePercentBp("0.681")).toBeNull();
    expect(parsePercentBp("abc")).toBeNull();
    fc.assert(fc.property(fc.integer({ min: 0, max: 1_000_000 }), (bp) => parsePercentBp(formatPercentText(bp)) === bp));
  });
});
