/**
 * The hot statements on the orders table find each order by its primary key. A plan that walks
 * the status index instead visits every open order once per id: with a market's open orders in
 * the tens of thousands, one beat's entries would cost seconds of the database's one thread.
 */
import { sql, type SQL } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { entriesUpdate } from "../../../worker/domain/trades/entry-writes";
import { db } from "../helpers";

const plan = async (q: SQL) => (await db.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${q}`)).map((r) => r.detail);

describe("orders are found by primary key", () => {
  it("a beat's entries", async () => {
    const steps = await plan(entriesUpdate({ ts_ms: 1, price_e8: 1 }, [1, 2, 3]));
    expect(steps.some((d) => /SEARCH orders USING INTEGER PRIMARY KEY/.test(d))).toBe(true);
    expect(steps.some((d) => /orders_due_idx|SCAN orders/.test(d))).toBe(false);
  });
});
