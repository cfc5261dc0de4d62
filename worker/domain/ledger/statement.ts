import { and, desc, eq, gte, inArray, lt, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";
import { ledger_accounts, ledger_transfers } from "../../db/schema";

/**
 * A user's statement: every transfer that touched one of their accounts, newest first, with
 * the signed amount and that account's balance right after. Both legs of an internal move
 * (available → locked) appear as two lines, one per account, exactly as the ledger has them.
 */
export type StatementLine = {
  transfer_id: number;
  account: string;
  code: string;
  ref_type: string;
  ref_id: string;
  amount_micro: number;
  balance_after_micro: number;
  counterparty: string;
  created_at_ms: number;
};

const debit = alias(ledger_accounts, "debit");
const credit = alias(ledger_accounts, "credit");

function linesQuery(db: Db, where: SQL | undefined) {
  return db
    .select({
      transfer_id: ledger_transfers.id,
      code: ledger_transfers.code,
      ref_type: ledger_transfers.ref_type,
      ref_id: ledger_transfers.ref_id,
      amount_micro: ledger_transfers.amount_micro,
      debit_user: debit.user_id,
      debit_code: debit.code,
      debit_key: debit.account_key,
      credit_user: credit.user_id,
      credit_code: credit.code,
      credit_key: credit.account_key,
      debit_after: ledger_transfers.debit_balance_after_micro,
      credit_after: ledger_transfers.credit_balance_after_micro,
      created_at_ms: ledger_transfers.created_at_ms,
    })
    .from(ledger_transfers)
    .innerJoin(debit, eq(debit.id, ledger_transfers.debit_account_id))
    .innerJoin(credit, eq(credit.id, ledger_transfers.credit_account_id))
    .where(where);
}

const touches = (user_id: number) => or(eq(debit.user_id, user_id), eq(credit.user_id, user_id));

type Row = Awaited<ReturnType<ReturnType<typeof linesQuery>["all"]>>[number];

function toLines(row: Row, user_id: number): StatementLine[] {
  const lines: StatementLine[] = [];
  // Credit side first: for a move between two of the user's own accounts, "in" then "out".
  if (row.credit_user === user_id) {
    lines.push({ ...base(row), account: row.credit_code, amount_micro: row.amount_micro, balance_after_micro: row.credit_after, counterparty: row.debit_key });
  }
  if (row.debit_user === user_id) {
    lines.push({ ...base(row), account: row.debit_code, amount_micro: -row.amount_micro, balance_after_micro: row.debit_after, counterparty: row.credit_key });
  }
  return lines;
}

function base(row: Row) {
  return { transfer_id: row.transfer_id, code: row.code, ref_type: row.ref_type, ref_id: row.ref_id, created_at_ms: row.created_at_ms };
}

export async function userStatement(db: Db, user_id: number, page: { page_no: number; row: number }) {
  const rows = await linesQuery(db, touches(user_id))
    .orderBy(desc(ledger_transfers.id))
    .limit(page.row)
    .offset((page.page_no - 1) * page.row);
  const [{ total }] = await db
    .select({ total: sql<number>`count(*)` })
    .from(ledger_transfers)
    .where(
      or(
        inArray(ledger_transfers.debit_account_id, db.select({ id: ledger_accounts.id }).from(ledger_accounts).where(eq(ledger_accounts.user_id, user_id))),
        inArray(ledger_transfers.credit_account_id, db.select({ id: ledger_accounts.id }).from(ledger_accounts).where(eq(ledger_accounts.user_id, user_id))),
      ),
    );
  return { items: rows.flatMap((r) => toLines(r, user_id)), total };
}

/**
 * The statement's lines of transfers made in [from_ms, to_ms), newest first, as the page lists
 * them (the same query and lines; the CSV export reads this). At most `max_transfers`.
 */
export async function userStatementBetween(db: Db, user_id: number, range: { from_ms: number; to_ms: number }, max_transfers: number): Promise<StatementLine[]> {
  const rows = await linesQuery(db, and(touches(user_id), gte(ledger_transfers.created_at_ms, range.from_ms), lt(ledger_transfers.created_at_ms, range.to_ms)))
    .orderBy(desc(ledger_transfers.id))
    .limit(max_transfers);
  return rows.flatMap((r) => toLines(r, user_id));
}

/** One transfer, only if it touched this user's accounts. */
export async function statementEntry(db: Db, user_id: number, transfer_id: number): Promise<StatementLine[] | null> {
  const [row] = await linesQuery(db, and(eq(ledger_transfers.id, transfer_id), touches(user_id)));
  return row ? toLines(row, user_id) : null;
}
