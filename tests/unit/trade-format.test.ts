import { describe, expect, it } from "vitest";
import { formatVolume } from "../../app/lib/trade-format";

describe("formatVolume", () => {
  it("shortens with our own K/M/B, so server and browser draw the same text in every language", () => {
    expect(formatVolume("1240", "en")).toBe("1.24K");
    expect(formatVolume("3500000", "es")).toBe("3,5M");
    expect(formatVolume("2000000000", "de")).toBe("2B");
    expect(formatVolume("999.5", "it")).toBe("999,5");
  });
  it("says -- for nothing or nonsense", () => {
    expect(formatVolume(null, "en")).toBe("--");
    expect(formatVolume("abc", "en")).toBe("--");
  });
});
