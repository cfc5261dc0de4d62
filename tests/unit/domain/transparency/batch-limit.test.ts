import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BATCH_LEAVES, batchLimit } from "../../../../worker/domain/transparency/sequencer";
import { TILE_WIDTH } from "../../../../worker/domain/transparency/tiles";

describe("a log batch ends on a tile's edge (decision 153)", () => {
  it("from any size, the next batch ends exactly on an edge, takes at least one leaf and at most max", () => {
    fc.assert(
      fc.property(fc.nat({ max: 2 ** 40 }), fc.integer({ min: TILE_WIDTH, max: 10_000 }), (tree_size, max) => {
        const limit = batchLimit(tree_size, max);
        expect(limit).toBeGreaterThanOrEqual(1);
        expect(limit).toBeLessThanOrEqual(max);
        expect((tree_size + limit) % TILE_WIDTH).toBe(0);
        // The most that does: one more tile would pass max.
        expect(limit + TILE_WIDTH).toBeGreaterThan(max);
      }),
    );
  });

  it("at the default, a log fed faster than it appends fills one whole tile a batch once aligned", () => {
    expect(BATCH_LEAVES).toBe(TILE_WIDTH);
    const sizes: number[] = [];
    for (let size = 100; size < 100 + 5 * TILE_WIDTH; size += batchLimit(size, BATCH_LEAVES)) sizes.push(batchLimit(size, BATCH_LEAVES));
    expect(sizes).toEqual([156, 256, 256, 256, 256, 256]);
  });

  it("below one tile's width (tests' small batches) the limit is max itself", () => {
    expect(batchLimit(0, 3)).toBe(3);
    expect(batchLimit(255, 7)).toBe(7);
  });
});
