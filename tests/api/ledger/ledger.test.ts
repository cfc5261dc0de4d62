import { eq, sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ledger_transfers, ledger_accounts } from "../../../worker/db/schema";
import { platformAccount, userAccount, USER_ACCOUNT_CODES, type AccountKey } from "../../../worker/domain/ledger/accounts";
import { userBalances } from "../../../worker/domain/ledger/balances";
import { checkLedger } from "../../../worker/domain/ledger/check";
import { postTransfers, type Transfer } from "../../../worker/domain/ledger/transfer";
import { call, db, newUser, testEnv } from "../helpers";

const USDT = 1_000_000;
let k = 0;
const key = (p = "t") => `${p}:${Date.now()}:${++k}`;

function fund(user_id: number, amount_micro: number, transfer_key = key("fund")): Transfer {
  return { key: transfer_key, debit: platformAccount("deposits"), credit: userAccount(user_id, "available"), amount_micro, code: "deposit", ref_type: "test", ref_id: transfer_key };
}

describe("ledger accounts", () => {
  it("registration creates the four user accounts at zero, and the books balance", async () => {
    const u = await newUser();
    const rows = await db.select().from(ledger_accounts).where(eq(ledger_accounts.user_id, u.id));
    expect(rows.map((r) => r.code).sort()).toEqual([...USER_ACCOUNT_CODES].sort());
    expect(rows.every((r) => r.balance_micro === 0)).toBe(true);
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("user info shows balances from the ledger", async () => {
    const u = await newUser();
    expect(await postTransfers(db, [fund(u.id, 125 * USDT + 500_000)], [], Date.now())).toEqual({ status: "ok" });
    await postTransfers(
      db,
      [{ key: key(), debit: userAccount(u.id, "available"), credit: userAccount(u.id, "locked_withdrawal"), amount_micro: 25 * USDT, code: "withdrawal_lock", ref_type: "test", ref_id: "1" }],
      [],
      Date.now(),
    );
    const me = await call("/api/user/user", {}, { token: u.token });
    expect(me.data).toMatchObject({ balance: "100.50", locked: "25.00", total: "125.50", balance_micro: 100_500_000, locked_micro: 25_000_000, total_micro: 125_500_000 });
  });
});

describe("transfers", () => {
  it("record the balances after, on both sides", async () => {
    const u = await newUser();
    await postTransfers(db, [fund(u.id, 10 * USDT), fund(u.id, 5 * USDT)], [], Date.now());
    const rows = await db
      .select()
      .from(ledger_transfers)
      .where(sql`credit_account_id = (SELECT id FROM ledger_accounts WHERE account_key = ${userAccount(u.id, "available")})`)
      .orderBy(ledger_transfers.id);
    expect(rows.map((r) => r.credit_balance_after_micro)).toEqual([10 * USDT, 15 * USDT]);
  });

  it("a reused key never moves money twice", async () => {
    const u = await newUser();
    const same = key("replay");
    expect((await postTransfers(db, [fund(u.id, 7 * USDT, same)], [], Date.now())).status).toBe("ok");
    const replays = await Promise.all(Array.from({ length: 5 }, () => postTransfers(db, [fund(u.id, 7 * USDT, same)], [], Date.now())));
    expect(replays.every((r) => r.status === "duplicate")).toBe(true);
    expect((await userBalances(db, u.id)).available_micro).toBe(7 * USDT);
  });

  it("an overdraft fails the whole batch, the caller's own statements included", async () => {
    const u = await newUser();
    await postTransfers(db, [fund(u.id, 10 * USDT)], [], Date.now());
    const marker = key("marker");
    const r = await postTransfers(
      db,
      [
        { key: key(), debit: userAccount(u.id, "available"), credit: userAccount(u.id, "locked_trade"), amount_micro: 4 * USDT, code: "x", ref_type: "t", ref_id: "1" },
        { key: key(), debit: userAccount(u.id, "available"), credit: platformAccount("fees"), amount_micro: 7 * USDT, code: "x", ref_type: "t", ref_id: "1" },
      ],
      [db.insert(ledger_accounts).values({ account_key: `platform:${marker}`, owner_kind: "platform", code: marker, created_at_ms: 0 })],
      Date.now(),
    );
    expect(r.status).toBe("insufficient_funds");
    expect((await userBalances(db, u.id)).available_micro).toBe(10 * USDT);
    expect((await userBalances(db, u.id)).locked_trade_micro).toBe(0);
    expect(await db.select().from(ledger_accounts).where(eq(ledger_accounts.account_key, `platform:${marker}`))).toHaveLength(0);
  });

  it("an unknown account is refused and nothing moves", async () => {
    const u = await newUser();
    await postTransfers(db, [fund(u.id, 3 * USDT)], [], Date.now());
    const r = await postTransfers(db, [{ ...fund(u.id, 1), debit: userAccount(u.id, "available"), credit: "user:999999999:available" as AccountKey }], [], Date.now());
    expect(r.status).toBe("account_missing");
    expect((await userBalances(db, u.id)).available_micro).toBe(3 * USDT);
  });

  it("50 concurrent debits that together exceed the balance never overdraw it", async () => {
    const u = await newUser();
    await postTransfers(db, [fund(u.id, 1000 * USDT)], [], Date.now());
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        postTransfers(
          db,
          [{ key: key(`w${i}`), debit: userAccount(u.id, "available"), credit: userAccount(u.id, "locked_withdrawal"), amount_micro: 30 * USDT, code: "withdrawal_lock", ref_type: "test", ref_id: String(i) }],
          [],
          Date.now(),
        ),
      ),
    );
    const ok = results.filter((r) => r.status === "ok").length;
    expect(ok).toBe(33);
    expect(results.filter((r) => r.status === "insufficient_funds")).toHaveLength(17);
    const b = await userBalances(db, u.id);
    expect(b.available_micro).toBe(10 * USDT);
    expect(b.locked_withdrawal_micro).toBe(990 * USDT);
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("transfers cannot be edited or deleted", async () => {
    const u = await newUser();
    await postTransfers(db, [fund(u.id, USDT)], [], Date.now());
    await expect(testEnv.DB.prepare("UPDATE ledger_transfers SET amount_micro = 1").run()).rejects.toThrow(/append-only/);
    await expect(testEnv.DB.prepare("DELETE FROM ledger_transfers").run()).rejects.toThrow(/append-only/);
  });

  it("a cached balance cannot be edited away from its totals", async () => {
    const u = await newUser();
    await expect(testEnv.DB.prepare("UPDATE ledger_accounts SET balance_micro = balance_micro + 5 WHERE account_key = ?").bind(userAccount(u.id, "available")).run()).rejects.toThrow(/CHECK/);
  });
});

describe("model-based: random transfer sequences keep the books", () => {
  it("after every step: no negative user balance, cached = ledger, debits = credits, matches the model", async () => {
    const users = [await newUser(), await newUser(), await newUser()];
    const accounts: AccountKey[] = [
      ...users.flatMap((u) => USER_ACCOUNT_CODES.map((c) => userAccount(u.id, c))),
      platformAccount("deposits"),
      platformAccount("fees"),
      platformAccount("trading"),
    ];
    const model = new Map<AccountKey, number>();
    for (const a of accounts) {
      const [row] = await db.select().from(ledger_accounts).where(eq(ledger_accounts.account_key, a));
      model.set(a, row.balance_micro);
    }
    const step = fc.record({
      from: fc.integer({ min: 0, max: accounts.length - 1 }),
      to: fc.integer({ min: 0, max: accounts.length - 1 }),
      amount_micro: fc.integer({ min: 1, max: 500 * USDT }),
      replay: fc.boolean(),
    });
    let used: string | null = null;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        for (const s of steps) {
          if (s.from === s.to) continue;
          const t: Transfer = {
            key: s.replay && used ? used : key("m"),
            debit: accounts[s.from],
            credit: accounts[s.to],
            amount_micro: s.amount_micro,
            code: "model",
            ref_type: "model",
            ref_id: "x",
          };
          const r = await postTransfers(db, [t], [], Date.now());
          const wouldOverdraw = t.debit.startsWith("user:") && model.get(t.debit)! < t.amount_micro;
          if (t.key === used) expect(r.status).toBe("duplicate");
          else if (wouldOverdraw) expect(r.status).toBe("insufficient_funds");
          else {
            expect(r.status).toBe("ok");
            model.set(t.debit, model.get(t.debit)! - t.amount_micro);
            model.set(t.credit, model.get(t.credit)! + t.amount_micro);
            used = t.key;
          }
        }
        const report = await checkLedger(db);
        expect(report.drift).toEqual([]);
        expect(report.negative_user_accounts).toEqual([]);
        expect(report.ok).toBe(true);
        for (const a of accounts) {
          const [row] = await db.select().from(ledger_accounts).where(eq(ledger_accounts.account_key, a));
          expect(row.balance_micro, a).toBe(model.get(a));
        }
      }),
      { numRuns: 60 },
    );
  });
});
