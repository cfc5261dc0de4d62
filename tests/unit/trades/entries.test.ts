import { describe, expect, it } from "vitest";
import { PendingEntries, type Entry, type Waiting } from "../../../durable-objects/quotes/entries";
import { MAX_ENTRY_WAIT_MS, type Tick } from "../../../worker/domain/trades/settlement";

function hub(ticks: Tick[], recovered: Waiting[] = []) {
  const writes: Entry[][] = [];
  let reads = 0;
  const entries = new PendingEntries({
    firstTickAfter: (after, until) => ticks.filter((t) => t.ts_ms > after && t.ts_ms <= until).sort((a, b) => a.ts_ms - b.ts_ms)[0] ?? null,
    write: async (e) => void writes.push([...e]),
    waiting: async () => (reads++, recovered),
  });
  return { entries, writes, reads: () => reads };
}

describe("the hub stores each order's entry: the first tick after its acceptance", () => {
  it("one write for all the orders whose tick has come; the others wait; never a tick from before or at acceptance", async () => {
    const ticks = [{ ts_ms: 1_000, price_e8: 1 }, { ts_ms: 2_000, price_e8: 2 }];
    const h = hub(ticks);
    h.entries.add([{ id: 1, user_id: 7, accepted_at_ms: 1_000 }, { id: 2, user_id: 7, accepted_at_ms: 1_500 }, { id: 3, user_id: 8, accepted_at_ms: 2_000 }]);
    expect(await h.entries.flush(2_100)).toBe(2);
    expect(h.writes).toEqual([[{ id: 1, tick: { ts_ms: 2_000, price_e8: 2 } }, { id: 2, tick: { ts_ms: 2_000, price_e8: 2 } }]]);
    expect(h.entries.size).toBe(1);
    ticks.push({ ts_ms: 3_000, price_e8: 3 });
    expect(await h.entries.flush(3_100)).toBe(1);
    expect(h.writes[1]).toEqual([{ id: 3, tick: { ts_ms: 3_000, price_e8: 3 } }]);
  });

  it("an order with no tick within the wait is dropped (settlement voids it), and a restarted hub reads the waiting ones back once", async () => {
    const h = hub([], [{ id: 9, user_id: 1, accepted_at_ms: 0 }]);
    expect(await h.entries.flush(1_000)).toBe(0);
    expect(h.entries.size).toBe(1);
    expect(await h.entries.flush(MAX_ENTRY_WAIT_MS + 1)).toBe(0);
    expect(h.entries.size).toBe(0);
    expect(h.reads()).toBe(1);
    expect(h.writes).toEqual([]);
  });
});
