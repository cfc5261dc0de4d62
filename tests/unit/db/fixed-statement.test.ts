import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { fixedStatement } from "../../../worker/db/client";
import { transferSetStatements, type SetTransfer } from "../../../worker/domain/ledger/transfer";
import { userAccount } from "../../../worker/domain/ledger/accounts";

describe("statements rendered once (decision 168)", () => {
  it("renders each placeholder as a ? and binds the values of each use in order", () => {
    const make = fixedStatement(sql`SELECT ${sql.raw("json_extract(value, '$[0]')")} FROM json_each(${sql.placeholder("rows")}) WHERE x = ${sql.placeholder("x")}`);
    const a = make("[1]", 7);
    const b = make("[2]", 8);
    expect(a.text).toBe("SELECT json_extract(value, '$[0]') FROM json_each(?) WHERE x = ?");
    expect(b.text).toBe(a.text);
    expect([a.params, b.params]).toEqual([["[1]", 7], ["[2]", 8]]);
  });

  it("refuses a template that binds a value (it would be bound again at every later use) and a use with the wrong count", () => {
    expect(() => fixedStatement(sql`SELECT ${42}`)).toThrow(/placeholders only/);
    const make = fixedStatement(sql`SELECT ${sql.placeholder("a")}`);
    expect(() => make()).toThrow(/1 values wanted, 0 given/);
    expect(() => make(1, 2)).toThrow(/1 values wanted, 2 given/);
  });

  it("a transfer set is its records and its account moves, the records naming orders only when a transfer does", () => {
    const base = { debit: userAccount(1, "available"), credit: userAccount(1, "locked_trade"), amount_micro: 5, code: "trade_stake", ref_type: "order" } as const;
    const byOrder: SetTransfer = { ...base, key: "k1", ref_order: { user_id: 1, request_key: "client:x" } };
    const byId: SetTransfer = { ...base, key: "k2", ref_id: "9" };
    const [records, moves] = transferSetStatements([byOrder], 1);
    const [plainRecords] = transferSetStatements([byId], 1);
    expect(records.text).toContain("SELECT o.id FROM orders o");
    expect(plainRecords.text).not.toContain("FROM orders o");
    expect(moves.text).toMatch(/^UPDATE ledger_accounts/);
    // Balances after, by running sums: the stake leaves available (-5) and reaches locked (+5).
    expect(JSON.parse(records.params[0] as string)[0].slice(7, 9)).toEqual([-5, 5]);
    expect(JSON.parse(moves.params[0] as string)).toEqual([
      [userAccount(1, "available"), 5, 0],
      [userAccount(1, "locked_trade"), 0, 5],
    ]);
  });
});
