/**
 * Bench-only: the least a group of orders can cost on D1, written by hand for the floor
 * (floor-worker.ts). ONE batch of three statements, each over one JSON parameter: the order
 * rows, their stake and fee transfer records (in the group's order, with each account's
 * balance after), and each touched account updated once. Three tables change and one statement
 * writes one table, so no batch can hold fewer. Nothing else: no read after a refusal and no
 * fallback (a refused group is an error here; the bench's users are funded for every order).
 *
 * It writes the same rows as the app's `writeOrders` for the same group (ids, balances after,
 * log entries): tests/api/trades/order-groups.test.ts compares them, so the floor cannot get
 * cheaper by doing less of the work.
 */
import type { CheckedOrder, PlaceResult } from "../../worker/domain/trades/order-check";
import type { Order } from "../../worker/domain/trades/orders";
import { tradeAccounts } from "../../worker/domain/ledger/accounts";

const ORDERS = `INSERT INTO orders (user_id, product_id, symbol, direction, stake_micro, fee_micro, profit_rate_bp, seconds, quote_price_e8, created_at_ms, delivery_at_ms, status, request_key, request_hash, feed, terms_version, wallet)
  SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9, value ->> 10, 'open', value ->> 11, value ->> 12, value ->> 13, value ->> 14, value ->> 15
  FROM json_each(?) ORDER BY key RETURNING *`;

const TRANSFERS = `INSERT INTO ledger_transfers (transfer_key, debit_account_id, credit_account_id, amount_micro, code, ref_type, ref_id, debit_balance_after_micro, credit_balance_after_micro, created_at_ms)
  SELECT j.value ->> 0, d.id, c.id, j.value ->> 3, j.value ->> 4, 'order', CAST((SELECT o.id FROM orders o WHERE o.user_id = j.value ->> 7 AND o.request_key = j.value ->> 8) AS TEXT),
    d.balance_micro + (j.value ->> 5), c.balance_micro + (j.value ->> 6), j.value ->> 9
  FROM json_each(?) AS j
  JOIN ledger_accounts d ON d.account_key = j.value ->> 1
  JOIN ledger_accounts c ON c.account_key = j.value ->> 2
  ORDER BY j.key`;

const ACCOUNTS = `UPDATE ledger_accounts SET balance_micro = balance_micro + (m.value ->> 2) - (m.value ->> 1), debits_micro = debits_micro + (m.value ->> 1), credits_micro = credits_micro + (m.value ->> 2)
  FROM json_each(?) AS m WHERE ledger_accounts.account_key = m.value ->> 0`;

/** The three statements of a group. */
export function floorGroupStatements(d1: D1Database, items: readonly CheckedOrder[]): D1PreparedStatement[] {
  const orders = items.map(({ input, product, duration, fee_micro, now_ms, request_hash, feed, wallet }) => [
    input.user_id, product.id, product.symbol, input.direction, input.stake_micro, fee_micro, duration.profit_rate_bp, duration.seconds, input.quote_price_e8,
    now_ms, now_ms + duration.seconds * 1000, input.request_key, request_hash, feed ?? "simulation", product.terms_version, wallet ?? "real",
  ]);
  // Each account's movement so far in the group: a record's balance after is the balance before the group plus it.
  const moved = new Map<string, { debits: number; credits: number }>();
  const move = (key: string, debit: number, credit: number) => {
    const m = moved.get(key) ?? { debits: 0, credits: 0 };
    m.debits += debit;
    m.credits += credit;
    moved.set(key, m);
    return m.credits - m.debits;
  };
  const transfers: unknown[][] = [];
  for (const { input, fee_micro, now_ms, wallet } of items) {
    const a = tradeAccounts(input.user_id, wallet ?? "real");
    const leg = (suffix: string, credit: string, amount: number, code: string) =>
      transfers.push([`order:${input.user_id}:${input.request_key}:${suffix}`, a.free, credit, amount, code, move(a.free, amount, 0), move(credit, 0, amount), input.user_id, input.request_key, now_ms]);
    leg("stake", a.locked, input.stake_micro, "trade_stake");
    if (fee_micro > 0) leg("fee", a.fees, fee_micro, "trade_fee");
  }
  const accounts = [...moved].map(([key, m]) => [key, m.debits, m.credits]);
  return [d1.prepare(ORDERS).bind(JSON.stringify(orders)), d1.prepare(TRANSFERS).bind(JSON.stringify(transfers)), d1.prepare(ACCOUNTS).bind(JSON.stringify(accounts))];
}

/** Writes a group in one batch; each order's answer, found by its request (RETURNING promises no order). */
export async function writeFloorGroup(d1: D1Database, items: readonly CheckedOrder[]): Promise<PlaceResult[]> {
  const [written] = await d1.batch<Order>(floorGroupStatements(d1, items));
  const byRequest = new Map(written.results.map((row) => [`${row.user_id}:${row.request_key}`, row]));
  return items.map((o) => {
    const order = byRequest.get(`${o.input.user_id}:${o.input.request_key}`);
    if (!order) throw new Error(`floor: no row for ${o.input.user_id}:${o.input.request_key}`);
    return { status: "ok", order, replayed: false };
  });
}
