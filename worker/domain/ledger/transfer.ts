import { sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { d1Statements, type Db } from "../../db/client";
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
