import { eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { ledger_accounts, ledger_transfers } from "../../db/schema";
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
 * The three statements of one transfer, in this order: record, debit, credit. A reused key
 * fails the UNIQUE on the record first (so a replay is always reported as one, whatever the
 * balance); an unknown account leaves a NULL id that fails NOT NULL; an overdraft of a user
 * account fails the CHECK on the debit. Any failure rolls back the whole batch.
 */
export function transferStatements(db: Db, t: Transfer, now_ms: number) {
  assertTransfer(t);
  const idOf = (key: AccountKey) => sql`(SELECT id FROM ledger_accounts WHERE account_key = ${key})`;
  // Read before the updates below, inside the same transaction: balance after = before ± amount.
  const balanceOf = (key: AccountKey, sign: "-" | "+") =>
    sql`((SELECT balance_micro FROM ledger_accounts WHERE account_key = ${key}) ${sql.raw(sign)} ${t.amount_micro})`;
  return [
    db.insert(ledger_transfers).values({
      transfer_key: t.key,
      debit_account_id: idOf(t.debit) as unknown as number,
      credit_account_id: idOf(t.credit) as unknown as number,
      amount_micro: t.amount_micro,
      code: t.code,
      ref_type: t.ref_type,
      ref_id: t.ref_id,
      debit_balance_after_micro: balanceOf(t.debit, "-") as unknown as number,
      credit_balance_after_micro: balanceOf(t.credit, "+") as unknown as number,
      created_at_ms: now_ms,
    }),
    db
      .update(ledger_accounts)
      .set({
        balance_micro: sql`${ledger_accounts.balance_micro} - ${t.amount_micro}`,
        debits_micro: sql`${ledger_accounts.debits_micro} + ${t.amount_micro}`,
      })
      .where(eq(ledger_accounts.account_key, t.debit)),
    db
      .update(ledger_accounts)
      .set({
        balance_micro: sql`${ledger_accounts.balance_micro} + ${t.amount_micro}`,
        credits_micro: sql`${ledger_accounts.credits_micro} + ${t.amount_micro}`,
      })
      .where(eq(ledger_accounts.account_key, t.credit)),
  ] as const;
}

/**
 * Posts transfers, together with the caller's own statements (the business object's insert
 * or state change, its transition record, its audit entry), as ONE D1 batch: all of it
 * happens or none of it does. Constraint failures come back as named statuses.
 */
export async function postTransfers(db: Db, transfers: Transfer[], alongside: BatchItem<"sqlite">[], now_ms: number): Promise<PostResult> {
  const statements = [...alongside, ...transfers.flatMap((t) => transferStatements(db, t, now_ms))] as BatchItem<"sqlite">[];
  if (statements.length === 0) return { status: "ok" };
  try {
    await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
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
