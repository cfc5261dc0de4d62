import { sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { d1Statements, fixedStatement, jsonAt, type Db } from "../../db/client";
import type { AccountKey } from "./accounts";

export type Transfer = {
  /** Idempotency key: the same key moves money at most once, ever. */
  key: string;
  debit: AccountKey;
  credit: AccountKey;
  amount_micro: number;
  code: string;
  ref_type: string;
  ref_id: string;
};

export type PostResult = { status: "ok" } | { status: MoneyFailure };

function assertTransfer(t: Transfer) {
  if (!Number.isSafeInteger(t.amount_micro) || t.amount_micro <= 0) throw new Error(`transfer ${t.key}: amount must be a positive safe integer`);
  if (t.debit === t.credit) throw new Error(`transfer ${t.key}: debit and credit are the same account`);
  if (!t.key || t.key.length > 200) throw new Error("transfer: key must be 1-200 characters");
}

/**
 * The two statements of one transfer, in this order: the record, then one update of both
 * accounts. A reused key fails the UNIQUE on the record first (so a replay is always reported
 * as one, whatever the balance); an unknown account leaves a NULL id that fails NOT NULL; an
 * overdraft of a user account fails the CHECK on the update. Any failure rolls back the whole
 * batch.
 */
export function transferStatements(t: Transfer, now_ms: number): SQL[] {
  assertTransfer(t);
  // Raw SQL rather than drizzle's builders: thousands of these are built when many orders
  // settle at once, and a template costs a tenth of a builder (measured, tests/bench).
  const id = (key: AccountKey) => sql`(SELECT id FROM ledger_accounts WHERE account_key = ${key})`;
  // Read before the update below, inside the same transaction: balance after = before ± amount.
  const after = (key: AccountKey, sign: "-" | "+") => sql`((SELECT balance_micro FROM ledger_accounts WHERE account_key = ${key}) ${sql.raw(sign)} ${t.amount_micro})`;
  return [
    sql`INSERT INTO ledger_transfers (transfer_key, debit_account_id, credit_account_id, amount_micro, code, ref_type, ref_id, debit_balance_after_micro, credit_balance_after_micro, created_at_ms)
      VALUES (${t.key}, ${id(t.debit)}, ${id(t.credit)}, ${t.amount_micro}, ${t.code}, ${t.ref_type}, ${t.ref_id}, ${after(t.debit, "-")}, ${after(t.credit, "+")}, ${now_ms})`,
    // Both sides in one statement (one row each): half the statements of two updates.
    sql`UPDATE ledger_accounts SET
      balance_micro = balance_micro + CASE WHEN account_key = ${t.credit} THEN ${t.amount_micro} ELSE -${t.amount_micro} END,
      debits_micro = debits_micro + CASE WHEN account_key = ${t.credit} THEN 0 ELSE ${t.amount_micro} END,
      credits_micro = credits_micro + CASE WHEN account_key = ${t.credit} THEN ${t.amount_micro} ELSE 0 END
      WHERE account_key IN (${t.debit}, ${t.credit})`,
  ];
}

/**
 * A transfer of a set whose record names an order written earlier in the same batch (an order's
 * stake or fee): the order's id exists only inside the batch, so the record finds it there by
 * the order's request (user and client key, unique), as `transferStatements` callers do with a
 * subquery. `at_ms` stamps the record with its own time instead of the set's.
 */
export type SetTransfer = (Transfer | (Omit<Transfer, "ref_id"> & { ref_order: { user_id: number; request_key: string } })) & { at_ms?: number };

/**
 * Many transfers as two statements: their records (each with its accounts' balances after it,
 * from running sums computed here over the list), then every touched account's balance and
 * totals updated once by its net movement. The same guarantees as one transfer at a time: a
 * reused key fails the UNIQUE on the record, an unknown account leaves a NULL id that fails
 * NOT NULL (LEFT JOIN), an overdrawn user account fails the CHECK, and the batch rolls back.
 * The records are inserted in list order, so their ids, balances after and log entries are the
 * ones the same transfers posted one at a time would have.
 */
export function transferSetStatements(transfers: readonly SetTransfer[], now_ms: number) {
  if (transfers.length === 0) return [];
  const running = new Map<string, number>();
  const totals = new Map<string, { debits: number; credits: number }>();
  const move = (account: string, debit: number, credit: number) => {
    const t = totals.get(account) ?? { debits: 0, credits: 0 };
    totals.set(account, { debits: t.debits + debit, credits: t.credits + credit });
    const after = (running.get(account) ?? 0) + credit - debit;
    running.set(account, after);
    return after;
  };
  const rows = transfers.map((t) => {
    if (!Number.isSafeInteger(t.amount_micro) || t.amount_micro <= 0 || t.debit === t.credit) throw new Error(`transfer ${t.key}: invalid`);
    const ref = "ref_order" in t ? [null, t.ref_order.user_id, t.ref_order.request_key] : [t.ref_id, null, null];
    return [t.key, t.debit, t.credit, t.amount_micro, t.code, t.ref_type, ref[0], move(t.debit, t.amount_micro, 0), move(t.credit, 0, t.amount_micro), t.at_ms ?? now_ms, ref[1], ref[2]];
  });
  const accounts = [...totals].map(([key, t]) => [key, t.debits, t.credits]);
  // Only a set naming orders by request looks them up (one search of orders_request_unique each).
  const records = transfers.some((t) => "ref_order" in t) ? TRANSFER_RECORDS_NAMING_ORDERS : TRANSFER_RECORDS;
  return [records(JSON.stringify(rows)), ACCOUNT_MOVES(JSON.stringify(accounts))];
}

const at = (i: number) => jsonAt(i, "j.value");
/** A set's transfer records, each with its balances after; `ref` is the record's ref_id. */
const transferRecords = (ref: SQL) =>
  fixedStatement(sql`INSERT INTO ledger_transfers (transfer_key, debit_account_id, credit_account_id, amount_micro, code, ref_type, ref_id, debit_balance_after_micro, credit_balance_after_micro, created_at_ms)
      SELECT ${at(0)}, d.id, c.id, ${at(3)}, ${at(4)}, ${at(5)}, ${ref}, d.balance_micro + ${at(7)}, c.balance_micro + ${at(8)}, ${at(9)}
      FROM json_each(${sql.placeholder("records")}) AS j
      LEFT JOIN ledger_accounts d ON d.account_key = ${at(1)}
      LEFT JOIN ledger_accounts c ON c.account_key = ${at(2)}
      ORDER BY j.key`);
const TRANSFER_RECORDS = transferRecords(at(6));
const TRANSFER_RECORDS_NAMING_ORDERS = transferRecords(sql`COALESCE(${at(6)}, CAST((SELECT o.id FROM orders o WHERE o.user_id = ${at(10)} AND o.request_key = ${at(11)}) AS TEXT))`);
/** Each touched account's balance, moved once by its net debits and credits. */
const ACCOUNT_MOVES = fixedStatement(sql`UPDATE ledger_accounts SET balance_micro = balance_micro + m.credits - m.debits, debits_micro = debits_micro + m.debits, credits_micro = credits_micro + m.credits
      FROM (SELECT ${at(0)} AS account_key, ${at(1)} AS debits, ${at(2)} AS credits FROM json_each(${sql.placeholder("accounts")}) AS j) AS m
      WHERE ledger_accounts.account_key = m.account_key`);

/**
 * Posts transfers, together with the caller's own statements (the business object's insert
 * or state change, its transition record, its audit entry), as ONE D1 batch: all of it
 * happens or none of it does. Constraint failures come back as named statuses.
 */
export async function postTransfers(db: Db, transfers: Transfer[], alongside: (SQL | BatchItem<"sqlite">)[], now_ms: number): Promise<PostResult> {
  const statements = [...alongside, ...transfers.flatMap((t) => transferStatements(t, now_ms))];
  if (statements.length === 0) return { status: "ok" };
  try {
    await db.$client.batch(d1Statements(db, statements));
    return { status: "ok" };
  } catch (err) {
    const failure = classifyMoneyError(err);
    if (failure) return { status: failure };
    throw err;
  }
}

/**
 * The named ways a money batch can be refused by the database's own rules:
 * - insufficient_funds: a user account would go below zero (CHECK);
 * - duplicate: a transfer key was used before (UNIQUE): the money already moved;
 * - duplicate_request: the client's idempotency key was used before (UNIQUE);
 * - state_conflict: the object is not in the state the change starts from (transitions);
 * - four_eyes: an operator tried to approve their own proposal (CHECK);
 * - account_missing: a transfer names an account that does not exist (NOT NULL).
 */
export type MoneyFailure = "insufficient_funds" | "duplicate" | "duplicate_request" | "state_conflict" | "four_eyes" | "account_missing";

export function classifyMoneyError(err: unknown): MoneyFailure | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const message = String((e as { message?: unknown }).message ?? "");
    if (message.includes("ledger_accounts_user_non_negative")) return "insufficient_funds";
    if (message.includes("UNIQUE constraint failed: ledger_transfers.transfer_key")) return "duplicate";
    if (/UNIQUE constraint failed: \w+\.user_id, \w+\.request_key/.test(message)) return "duplicate_request";
    if (message.includes("NOT NULL constraint failed: transitions.entity_id") || message.includes("UNIQUE constraint failed: transitions.")) return "state_conflict";
    if (message.includes("adjustments_four_eyes")) return "four_eyes";
    if (message.includes("NOT NULL constraint failed: ledger_transfers.")) return "account_missing";
  }
  return null;
}
