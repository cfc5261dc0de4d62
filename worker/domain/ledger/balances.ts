import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { ledger_accounts } from "../../db/schema";
import { tradeAccounts, type UserAccountCode, type Wallet } from "./accounts";

export type UserBalances = {
  available_micro: number;
  locked_trade_micro: number;
  locked_pool_micro: number;
  locked_withdrawal_micro: number;
  /** Everything locked: open trades, pool deposits, withdrawals in review. */
  locked_micro: number;
  total_micro: number;
};

/**
 * A user's balances, read from their ledger accounts (never stored anywhere else). In a demo
 * deployment (`wallet` "demo") the balance a user trades with is their demo account, shown in
 * the same places; real accounts are never mixed in.
 */
export async function userBalances(db: Db, user_id: number, wallet: Wallet = "real"): Promise<UserBalances> {
  const rows = await db
    .select({ code: ledger_accounts.code, balance_micro: ledger_accounts.balance_micro })
    .from(ledger_accounts)
    .where(eq(ledger_accounts.user_id, user_id));
  const of = (code: UserAccountCode) => rows.find((r) => r.code === code)?.balance_micro ?? 0;
  const b =
    wallet === "demo"
      ? { available_micro: of("demo"), locked_trade_micro: of("demo_locked"), locked_pool_micro: 0, locked_withdrawal_micro: 0 }
      : { available_micro: of("available"), locked_trade_micro: of("locked_trade"), locked_pool_micro: of("locked_pool"), locked_withdrawal_micro: of("locked_withdrawal") };
  const locked_micro = b.locked_trade_micro + b.locked_pool_micro + b.locked_withdrawal_micro;
  return { ...b, locked_micro, total_micro: b.available_micro + locked_micro };
}

/** What a user can stake now: their `available` (or, in a demo, `demo`) account; 0 if none. */
export async function freeBalance(db: Db, user_id: number, wallet: Wallet): Promise<number> {
  const row = await db.query.ledger_accounts.findFirst({ where: eq(ledger_accounts.account_key, tradeAccounts(user_id, wallet).free), columns: { balance_micro: true } });
  return row?.balance_micro ?? 0;
}
