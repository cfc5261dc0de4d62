/**
 * The hot statements on the orders table find each order by its primary key. A plan that walks
 * the status index instead visits every open order once per id: with a market's open orders in
 * the tens of thousands, one beat's entries would cost seconds of the database's one thread.
 */
import { sql, type SQL } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { userAccount } from "../../../worker/domain/ledger/accounts";
import { transferSetStatements, type SetTransfer } from "../../../worker/domain/ledger/transfer";
import type { CheckedOrder } from "../../../worker/domain/trades/order-check";
import { entriesUpdate } from "../../../worker/domain/trades/entry-writes";
import { groupVerdictsQuery } from "../../../worker/domain/trades/order-writes";
import { dueOrdersQuery } from "../../../worker/domain/trades/settlement-writes";
import { FixedStatement } from "../../../worker/db/client";
import { db } from "../helpers";

const plan = async (q: SQL | FixedStatement) =>
  q instanceof FixedStatement
    ? ((await db.$client.prepare(`EXPLAIN QUERY PLAN ${q.text}`).bind(...q.params).all<{ detail: string }>()).results).map((r) => r.detail)
    : (await db.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${q}`)).map((r) => r.detail);

describe("orders are found by primary key", () => {
  it("a beat's entries", async () => {
    const steps = await plan(entriesUpdate({ ts_ms: 1, price_e8: 1 }, [1, 2, 3]));
    expect(steps.some((d) => /SEARCH orders USING INTEGER PRIMARY KEY/.test(d))).toBe(true);
    expect(steps.some((d) => /orders_due_idx|SCAN orders/.test(d))).toBe(false);
  });
});

describe("an order group's statements find orders by their request", () => {
  const stake: SetTransfer = { key: "order:1:client:x:stake", debit: userAccount(1, "available"), credit: userAccount(1, "locked_trade"), amount_micro: 1, code: "trade_stake", ref_type: "order", ref_order: { user_id: 1, request_key: "client:x" } };

  it("the transfer records name their orders through orders_request_unique", async () => {
    const [records] = transferSetStatements([stake], 1);
    const steps = await plan(records);
    expect(steps.some((d) => /SEARCH o USING (COVERING )?INDEX orders_request_unique/.test(d))).toBe(true);
    expect(steps.some((d) => /SCAN o\b|SCAN orders/.test(d))).toBe(false);
  });

  it("a refused group's read looks each order up by its request", async () => {
    const product = { id: 1, symbol: "X/USDT", terms_version: 1 } as CheckedOrder["product"];
    const item = { input: { user_id: 1, request_key: "client:x" }, product, now_ms: 1 } as CheckedOrder;
    const steps = await plan(groupVerdictsQuery([item, item]));
    expect(steps.some((d) => /SEARCH o USING (COVERING )?INDEX orders_request_unique/.test(d))).toBe(true);
    expect(steps.some((d) => /SCAN (o|orders|a|ledger_accounts|l|trading_limits|s|self_exclusions|p|products)\b/.test(d))).toBe(false);
  });
});

describe("a hub's due orders", () => {
  it("are read in settlement order from the open orders' index, without sorting every due one", async () => {
    // With 100,000 orders due in one second, a sort of every remaining due order per chunk made
    // each read 56 ms and the burst quadratic (decision 149).
    const steps = await plan(dueOrdersQuery("BTC/USDT", Date.now(), 500));
    expect(steps.some((d) => /SEARCH orders USING INDEX orders_open_due_idx \(symbol=\? AND delivery_at_ms<\?\)/.test(d))).toBe(true);
    expect(steps.some((d) => /TEMP B-TREE|SCAN orders/.test(d))).toBe(false);
  });
});
