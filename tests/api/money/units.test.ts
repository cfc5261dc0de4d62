import { describe, expect, it } from "vitest";
import { formatBp, formatPrice, formatUsdt, formatUsdtExact } from "../../../worker/domain/money/units";

// The pages render inside workerd: its Intl must keep decimal strings exact and truncate, as Node's does.
describe("money text inside workerd", () => {
  it("formats a decimal string exactly, cut to the cent", () => {
    const nf = new Intl.NumberFormat("de", { minimumFractionDigits: 2, maximumFractionDigits: 2, roundingMode: "trunc" } as Intl.NumberFormatOptions);
    expect((nf.format as unknown as (v: string) => string)("1234567.899")).toBe("1.234.567,89");
    expect(formatUsdt(Number.MAX_SAFE_INTEGER, "vi")).toBe("9.007.199.254,74");
    expect(formatUsdt(-1_239_999, "ja")).toBe("-1.23");
  });

  it("keeps exact amounts, rates and prices", () => {
    expect(formatUsdtExact(5_000, "th")).toBe("0.005");
    expect(formatBp(150, "de")).toBe("1,5");
    expect(formatPrice("67012.12345678", "en")).toBe("67,012.12345678");
  });
});
