import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tickSizeFits } from "../../../worker/domain/trades/products";

describe("tickSizeFits", () => {
  it("allows a price step of at most 1/1,000 of the start price", () => {
    expect(tickSizeFits(100 * 1e8, 10_000_000)).toBe(true); // 0.1 on 100
    expect(tickSizeFits(100 * 1e8, 10_000_001)).toBe(false);
    expect(tickSizeFits(67_250 * 1e8, 1_000_000)).toBe(true);
    expect(tickSizeFits(1, 1)).toBe(false);
  });

  it("the boundary is exactly 1,000 steps, without float rounding, for any price the API parses", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Math.floor(Number.MAX_SAFE_INTEGER / 1000) }), (tick) => {
        expect(tickSizeFits(tick * 1000, tick)).toBe(true);
        expect(tickSizeFits(tick * 1000 - 1, tick)).toBe(false);
      }),
    );
  });
});
