import { describe, expect, it } from "vitest";
import { FEED_BACKOFF, reconnectDelay } from "../../../durable-objects/quotes/backoff";

const at = (r: number) => () => r;

describe("reconnectDelay", () => {
  it("doubles from 0.5-1 s and stops at 16-32 s", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map((n) => reconnectDelay(n, FEED_BACKOFF, at(0)))).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 16_000, 16_000]);
    expect([1, 2, 3, 4, 5, 6, 7, 20].map((n) => reconnectDelay(n, FEED_BACKOFF, at(1)))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 32_000, 32_000]);
  });

  it("jitters within the upper half of each step", () => {
    expect(reconnectDelay(3, FEED_BACKOFF, at(0.5))).toBe(3_000);
    const draws = Array.from({ length: 200 }, () => reconnectDelay(4, FEED_BACKOFF, Math.random));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(4_000);
    expect(Math.max(...draws)).toBeLessThanOrEqual(8_000);
    expect(new Set(draws).size).toBeGreaterThan(50);
  });

  it("never waits less after another failure on the way up to the cap, whatever the draws", () => {
    for (let n = 1; n < 6; n++) expect(reconnectDelay(n + 1, FEED_BACKOFF, at(0))).toBeGreaterThanOrEqual(reconnectDelay(n, FEED_BACKOFF, at(1)));
  });

  it("takes a zeroth failure as the first", () => {
    expect(reconnectDelay(0, FEED_BACKOFF, at(1))).toBe(1_000);
  });
});
