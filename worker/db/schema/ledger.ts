import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Ledger accounts. A balance is a cache of the transfers (credits − debits); `ledger:check`
 * recomputes it. User accounts can never go below zero: the CHECK makes an overdraft fail its
 * statement, which rolls back the whole D1 batch. Platform accounts mirror the outside world
 * (money that came in through deposits shows as a negative `platform:deposits`), so the sum
 * of every balance is always zero.
 */
export const ledger_accounts = sqliteTable(
  "ledger_accounts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** "user:<id>:<code>" or "platform:<code>": how statements name an account. */
    account_key: text("account_key").notNull(),
    owner_kind: text("owner_kind", { enum: ["user", "platform"] }).notNull(),
    user_id: integer("user_id"),
    code: text("code").notNull(),
    balance_micro: integer("balance_micro").notNull().default(0),
    debits_micro: integer("debits_micro").notNull().default(0),
    credits_micro: integer("credits_micro").notNull().default(0),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [
    uniqueIndex("ledger_accounts_key_unique").on(t.account_key),
    index("ledger_accounts_user_idx").on(t.user_id),
    check("ledger_accounts_owner_check", sql`${t.owner_kind} in ('user','platform')`),
    check("ledger_accounts_user_non_negative", sql`${t.owner_kind} = 'platform' OR ${t.balance_micro} >= 0`),
    check("ledger_accounts_totals_non_negative", sql`${t.debits_micro} >= 0 AND ${t.credits_micro} >= 0`),
    check("ledger_accounts_balance_is_totals", sql`${t.balance_micro} = ${t.credits_micro} - ${t.debits_micro}`),
  ],
);

/**
 * Immutable transfers: `amount_micro` leaves the debit account and arrives in the credit
 * account. `transfer_key` is the idempotency key: the same key can never move money twice.
 * Triggers in the migration reject UPDATE and DELETE.
 */
export const ledger_transfers = sqliteTable(
  "ledger_transfers",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    transfer_key: text("transfer_key").notNull(),
    debit_account_id: integer("debit_account_id").notNull(),
    credit_account_id: integer("credit_account_id").notNull(),
    amount_micro: integer("amount_micro").notNull(),
    /** Reason code, e.g. "deposit", "withdrawal_lock", "trade_stake". */
    code: text("code").notNull(),
    /** The business object this transfer belongs to, e.g. ("deposit", "42"). */
    ref_type: text("ref_type").notNull(),
    ref_id: text("ref_id").notNull(),
    /** Balances right after this transfer, for statements ("balance after"). */
    debit_balance_after_micro: integer("debit_balance_after_micro").notNull(),
    credit_balance_after_micro: integer("credit_balance_after_micro").notNull(),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [
    uniqueIndex("ledger_transfers_key_unique").on(t.transfer_key),
    index("ledger_transfers_debit_idx").on(t.debit_account_id, t.id),
    index("ledger_transfers_credit_idx").on(t.credit_account_id, t.id),
    index("ledger_transfers_ref_idx").on(t.ref_type, t.ref_id),
    check("ledger_transfers_amount_positive", sql`${t.amount_micro} > 0`),
    check("ledger_transfers_distinct_accounts", sql`${t.debit_account_id} <> ${t.credit_account_id}`),
  ],
);
