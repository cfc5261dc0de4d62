import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";

export type LedgerReport = {
  ok: boolean;
  accounts: number;
  transfers: number;
  /** Sum of all transfer amounts: every one is debited once and credited once. */
  debits_micro: number;
  credits_micro: number;
  /** Sum of every cached balance; zero when the books balance. */
  balance_sum_micro: number;
  /** Accounts whose cached figures differ from the sum of their transfers. */
  drift: { account_key: string; cached_balance_micro: number; ledger_balance_micro: number }[];
  negative_user_accounts: string[];
  unsafe_amounts: number;
};

/**
 * Recomputes every balance from the transfers and compares it with the cached one. Used by
 * `npm run ledger:check`, the operator console and the model-based tests.
 */
export async function checkLedger(db: Db): Promise<LedgerReport> {
  const [accounts, totals] = await db.batch([
    db.all<{
      account_key: string;
      owner_kind: string;
      balance_micro: number;
      debits_micro: number;
      credits_micro: number;
      ledger_debits: number;
      ledger_credits: number;
    }>(sql`
      SELECT a.account_key, a.owner_kind, a.balance_micro, a.debits_micro, a.credits_micro,
        COALESCE((SELECT SUM(amount_micro) FROM ledger_transfers WHERE debit_account_id = a.id), 0) AS ledger_debits,
        COALESCE((SELECT SUM(amount_micro) FROM ledger_transfers WHERE credit_account_id = a.id), 0) AS ledger_credits
      FROM ledger_accounts a ORDER BY a.id`),
    db.all<{ transfers: number; amount_sum: number | null; unsafe: number }>(sql`
      SELECT COUNT(*) AS transfers, SUM(amount_micro) AS amount_sum,
        SUM(CASE WHEN amount_micro <= 0 OR amount_micro > 9007199254740991 OR typeof(amount_micro) <> 'integer' THEN 1 ELSE 0 END) AS unsafe
      FROM ledger_transfers`),
  ]);
  const drift = accounts
    .filter((a) => a.debits_micro !== a.ledger_debits || a.credits_micro !== a.ledger_credits || a.balance_micro !== a.ledger_credits - a.ledger_debits)
    .map((a) => ({ account_key: a.account_key, cached_balance_micro: a.balance_micro, ledger_balance_micro: a.ledger_credits - a.ledger_debits }));
  const negative_user_accounts = accounts.filter((a) => a.owner_kind === "user" && a.balance_micro < 0).map((a) => a.account_key);
  const debits_micro = accounts.reduce((s, a) => s + a.ledger_debits, 0);
  const credits_micro = accounts.reduce((s, a) => s + a.ledger_credits, 0);
  const balance_sum_micro = accounts.reduce((s, a) => s + a.balance_micro, 0);
  const t = totals[0] ?? { transfers: 0, amount_sum: 0, unsafe: 0 };
  const unsafe_amounts = t.unsafe ?? 0;
  const ok =
    drift.length === 0 &&
    negative_user_accounts.length === 0 &&
    debits_micro === credits_micro &&
    debits_micro === (t.amount_sum ?? 0) &&
    balance_sum_micro === 0 &&
    unsafe_amounts === 0 &&
    Number.isSafeInteger(debits_micro);
  return { ok, accounts: accounts.length, transfers: t.transfers, debits_micro, credits_micro, balance_sum_micro, drift, negative_user_accounts, unsafe_amounts };
}
