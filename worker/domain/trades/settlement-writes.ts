/**
 * Settling due orders: which orders are due, each decided against the stored ticks by the pure
 * `settle` (settlement.ts) with its audit ticks, and the decisions written in chunks of
 * set-based statements (guards, order updates with their audit ticks, transfers through the
 * ledger, notices), each chunk once.
 */
import { and, eq, lte, sql } from "drizzle-orm";
import { d1Statements, fixedStatement, jsonAt, type Db } from "../../db/client";
import { orders } from "../../db/schema";
import { tradeAccounts } from "../ledger/accounts";
import { classifyMoneyError, transferSetStatements, type Transfer } from "../ledger/transfer";
import { settledNotices } from "../notifications/settled";
import { settle, type Outcome, type Tick } from "./settlement";
import { auditTicksColumn, type Order } from "./orders";

/**
 * What settling an order reads of it: its owner and wallet, its side, money and terms, its times
 * and the entry the hub stored. Not the whole row: a burst reads every due order once.
 */
const DUE_FIELDS = ["id", "user_id", "wallet", "direction", "stake_micro", "fee_micro", "profit_rate_bp", "created_at_ms", "delivery_at_ms", "entry_price_e8", "entry_tick_ts_ms"] as const satisfies readonly (keyof Order)[];
export type DueOrder = Pick<Order, (typeof DUE_FIELDS)[number]>;

/**
 * Open orders of a symbol whose delivery time has passed, oldest delivery first and each
 * user's orders together (so a user hears once when all of theirs are settled).
 * The partial index `orders_open_due_idx` holds the open orders in this order, so a read walks
 * only the orders it returns instead of sorting every due one (a read took 56 ms with 100,000
 * due in one second, and a burst's cost grew with its square: decision 149). The rows come back
 * as one JSON text (decision 171): a burst reads 100,000 rows, and a value at a time through
 * D1's answer and drizzle's row mapping cost more of the hub than the database's read did.
 */
export async function dueOrders(db: Db, symbol: string, now_ms: number, limit = 500): Promise<DueOrder[]> {
  const [statement] = d1Statements(db, [dueOrdersQuery(symbol, now_ms, limit)]);
  const row = await statement.first<{ rows: string }>();
  const rows = JSON.parse(row?.rows ?? "[]") as DueRow[];
  // The aggregate keeps the inner read's order in practice, which SQL does not promise: sorted here too (500 at most).
  rows.sort((a, b) => a[8] - b[8] || a[1] - b[1] || a[0] - b[0]);
  return rows.map(([id, user_id, wallet, direction, stake_micro, fee_micro, profit_rate_bp, created_at_ms, delivery_at_ms, entry_price_e8, entry_tick_ts_ms]) => ({
    id,
    user_id,
    wallet,
    direction,
    stake_micro,
    fee_micro,
    profit_rate_bp,
    created_at_ms,
    delivery_at_ms,
    entry_price_e8,
    entry_tick_ts_ms,
  }));
}

/** A due order as the read's JSON holds it: DUE_FIELDS in order. */
type DueRow = [number, number, DueOrder["wallet"], DueOrder["direction"], number, number, number, number, number, number | null, number | null];

const DUE_ORDERS = fixedStatement(sql`SELECT json_group_array(json_array(${sql.raw(DUE_FIELDS.join(", "))})) AS rows FROM (
    SELECT ${sql.raw(DUE_FIELDS.join(", "))} FROM orders
    WHERE status = 'open' AND delivery_at_ms <= ${sql.placeholder("now_ms")} AND symbol = ${sql.placeholder("symbol")}
    ORDER BY delivery_at_ms, user_id, id LIMIT ${sql.placeholder("limit")})`);

/** The statement of `dueOrders` (its plan is tested: tests/api/trades/query-plans.test.ts). */
export function dueOrdersQuery(symbol: string, now_ms: number, limit: number) {
  return DUE_ORDERS(now_ms, symbol, limit);
}

/** Every symbol with open orders overdue by `grace_ms` (the scheduled sweep's work list). */
export async function overdueSymbols(db: Db, now_ms: number, grace_ms: number): Promise<string[]> {
  const rows = await db
    .selectDistinct({ symbol: orders.symbol })
    .from(orders)
    .where(and(eq(orders.status, "open"), lte(orders.delivery_at_ms, now_ms - grace_ms)));
  return rows.map((r) => r.symbol);
}

/** The money of one outcome: every transfer keyed by the order, so it can only happen once. */
function settlementTransfers(o: DueOrder, outcome: Outcome): Transfer[] {
  const t = (suffix: string, debit: Transfer["debit"], credit: Transfer["credit"], amount_micro: number, code: string): Transfer => ({
    key: `order:${o.id}:settle:${suffix}`,
    debit,
    credit,
    amount_micro,
    code,
    ref_type: "order",
    ref_id: String(o.id),
  });
  // Demo orders settle between demo accounts only (accounts.ts, tradeAccounts).
  const a = tradeAccounts(o.user_id, o.wallet);
  const out: Transfer[] = [];
  if (outcome.status === "lost") out.push(t("stake", a.locked, a.house, o.stake_micro, "trade_loss"));
  else out.push(t("stake", a.locked, a.free, o.stake_micro, `trade_${outcome.status === "won" ? "stake_return" : outcome.status === "tie" ? "tie_refund" : "void_refund"}`));
  if (outcome.status === "won" && outcome.payout_micro > o.stake_micro) out.push(t("gain", a.house, a.free, outcome.payout_micro - o.stake_micro, "trade_win"));
  if (outcome.status === "void" && o.fee_micro > 0) out.push(t("fee_refund", a.fees, a.free, o.fee_micro, "trade_fee_refund"));
  return out;
}

export type AuditTick = { ts_ms: number; price_e8: number; trade_id?: string; role: "entry" | "settlement" | "context" };

export type Settlement = { order: DueOrder; outcome: Outcome; audit: AuditTick[] };

/** Where each field sits in a settlement's row of a chunk's JSON (arrays: half the bytes of named fields for SQLite to read, twice). */
const ROW = { id: 0, status: 1, reason: 2, price: 3, ts: 4, entry_price: 5, entry_ts: 6, payout: 7, profit: 8, audit: 9 } as const;
const field = (name: keyof typeof ROW) => jsonAt(ROW[name], "j.value");

/** The transition guards: `(now_ms, rows)`. */
const SETTLED_TRANSITIONS = fixedStatement(sql`INSERT INTO transitions (entity, entity_id, from_state, to_state, actor_kind, actor_id, reason, created_at_ms)
  SELECT 'order', (SELECT o.id FROM orders o WHERE o.id = ${field("id")} AND o.status = 'open'), 'open', ${field("status")}, 'system', NULL, ${field("reason")}, ${sql.placeholder("now_ms")}
  FROM json_each(${sql.placeholder("rows")}) AS j`);

/**
 * The order updates: `(now_ms, rows)`. The guard above already proved every order open; joined
 * on the primary key, so SQLite looks each order up by id instead of scanning the open ones.
 * The entry the hub stored stays; one it had not stored yet is the one settlement found. The
 * audit ticks go in the same row (decision 169): a row per tick in order_ticks, about 7.7 an
 * order, was a fifth of a settlement burst's time.
 */
const SETTLED_ORDERS = fixedStatement(sql`UPDATE orders SET status = s.status, settlement_price_e8 = s.price, settlement_tick_ts_ms = s.ts, payout_micro = s.payout, profit_micro = s.profit, void_reason = s.reason, settled_at_ms = ${sql.placeholder("now_ms")},
    entry_price_e8 = COALESCE(orders.entry_price_e8, s.entry_price), entry_tick_ts_ms = COALESCE(orders.entry_tick_ts_ms, s.entry_ts), audit_ticks = s.audit
  FROM (SELECT ${field("id")} AS id, ${field("status")} AS status, ${field("price")} AS price, ${field("ts")} AS ts, ${field("entry_price")} AS entry_price, ${field("entry_ts")} AS entry_ts, ${field("payout")} AS payout, ${field("profit")} AS profit, ${field("reason")} AS reason, ${field("audit")} AS audit FROM json_each(${sql.placeholder("rows")}) AS j) AS s
  WHERE orders.id = s.id`);

/**
 * A chunk of settlements as ONE batch of five set-based statements, however many orders it
 * holds: the transition guards, the order updates (their audit ticks in them), the transfer
 * records, the account balances and the notices, each over one JSON parameter (SQLite's
 * json_each), each rendered once (`fixedStatement`). Every statement of a batch counts toward
 * D1's 1,000 queries per invocation, so a statement per order or per transfer would cap a burst
 * at a few hundred orders per invocation. If any order of the chunk is no longer open, the
 * guard's NOT NULL fails and nothing of the chunk is written.
 */
function settlementChunkStatements(db: Db, part: readonly Settlement[], now_ms: number): D1PreparedStatement[] {
  const rows = JSON.stringify(
    part.map(({ order: o, outcome, audit }) => {
      const at = outcome.status === "void" ? null : outcome.settlement;
      const row: unknown[] = [];
      row[ROW.id] = o.id;
      row[ROW.status] = outcome.status;
      row[ROW.reason] = outcome.status === "void" ? outcome.reason : "";
      row[ROW.price] = at?.price_e8 ?? null;
      row[ROW.ts] = at?.ts_ms ?? null;
      row[ROW.entry_price] = outcome.entry?.price_e8 ?? null;
      row[ROW.entry_ts] = outcome.entry?.ts_ms ?? null;
      row[ROW.payout] = outcome.payout_micro;
      row[ROW.profit] = outcome.profit_micro;
      row[ROW.audit] = auditTicksColumn(audit);
      return row;
    }),
  );
  return d1Statements(db, [
    SETTLED_TRANSITIONS(now_ms, rows),
    SETTLED_ORDERS(now_ms, rows),
    ...transferSetStatements(
      part.flatMap((s) => settlementTransfers(s.order, s.outcome)),
      now_ms,
    ),
    settledNoticesStatement(part, now_ms),
  ]);
}

/**
 * The owners' `orders_settled` notices of a chunk as one set-based statement (one per user, not
 * per order), in the chunk's batch: refused with it, replayed into nothing by the dedupe key.
 */
function settledNoticesStatement(part: readonly Settlement[], now_ms: number) {
  const notices = settledNotices(part.map(({ order: o, outcome }) => ({ id: o.id, user_id: o.user_id, stake_micro: o.stake_micro, payout_micro: outcome.payout_micro })));
  const rows = JSON.stringify(notices.map((n) => [n.user_id, JSON.stringify(n.params), n.dedupe_key]));
  return SETTLED_NOTICES(now_ms, rows);
}
/** `(now_ms, rows)`: each row `[user_id, params_json, dedupe_key]`. */
const SETTLED_NOTICES = fixedStatement(sql`INSERT INTO notifications (user_id, kind, params_json, dedupe_key, created_at_ms)
    SELECT ${jsonAt(0)}, 'orders_settled', ${jsonAt(1)}, ${jsonAt(2)}, ${sql.placeholder("now_ms")} FROM json_each(${sql.placeholder("rows")}) WHERE true
    ON CONFLICT DO NOTHING`);

/** Which of these orders are still open (one query; a refused chunk retries only those). */
async function stillOpen(db: Db, ids: readonly number[]): Promise<Set<number>> {
  // `+status`: by primary key, not by walking the status index (see entriesUpdate, entry-writes.ts).
  const rows = await db.all<{ id: number }>(sql`SELECT id FROM orders WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)})) AND +status = 'open'`);
  return new Set(rows.map((r) => r.id));
}

/**
 * Writes settlements, `chunk` orders per D1 batch. If a batch is refused because one of its
 * orders was already settled (an alarm ran twice, or the sweep got there first), the chunk is
 * written again without the orders that are no longer open (one query to find them, one
 * batch), so every order settles exactly once and a retry costs a handful of queries, never
 * one batch per order. Orders still refused after three tries stay open for the next beat.
 * `onSettled` hears each chunk that was written (the hub's exposure takes them off).
 */
export async function writeSettlements(db: Db, items: Settlement[], now_ms: number, opts: { chunk?: number; onSettled?: (written: readonly Settlement[]) => void } = {}): Promise<{ settled: number; already: number }> {
  const chunk = opts.chunk ?? 500;
  let settled = 0;
  let already = 0;
  for (let i = 0; i < items.length; i += chunk) {
    let todo = items.slice(i, i + chunk);
    for (let attempt = 0; attempt < 3 && todo.length > 0; attempt++) {
      try {
        await db.$client.batch(settlementChunkStatements(db, todo, now_ms));
        settled += todo.length;
        opts.onSettled?.(todo);
        todo = [];
      } catch (err) {
        if (!classifyMoneyError(err)) throw err;
        const open = await stillOpen(db, todo.map((s) => s.order.id));
        already += todo.length - open.size;
        todo = todo.filter((s) => open.has(s.order.id));
      }
    }
  }
  return { settled, already };
}

/** The entry an order already has (null: not stored yet, settlement finds it in the ticks). */
export function storedEntry(o: Pick<Order, "entry_price_e8" | "entry_tick_ts_ms">): Tick | null {
  return o.entry_price_e8 === null || o.entry_tick_ts_ms === null ? null : { ts_ms: o.entry_tick_ts_ms, price_e8: o.entry_price_e8 };
}

/** Settles orders against the symbol's ticks (oldest first), keeping the audit ticks. */
export function decide(order: DueOrder, ticks: readonly Tick[]): Settlement {
  const outcome = settle(
    { direction: order.direction, accepted_at_ms: order.created_at_ms, entry: storedEntry(order), stake_micro: order.stake_micro, fee_micro: order.fee_micro, profit_rate_bp: order.profit_rate_bp, delivery_at_ms: order.delivery_at_ms },
    ticks,
  );
  // Ticks are oldest first: the last three at or before `at` and the two after it.
  const around = (at: number) => {
    let lo = 0;
    let hi = ticks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ticks[mid].ts_ms <= at) lo = mid + 1;
      else hi = mid;
    }
    return ticks.slice(Math.max(0, lo - 3), lo + 2);
  };
  const audit = new Map<number, AuditTick>();
  // Around acceptance (the ticks before it, which the entry is not, and the one after, which it is) and around delivery.
  for (const t of [...around(order.created_at_ms), ...around(order.delivery_at_ms)]) audit.set(t.ts_ms, { ...t, role: "context" });
  const entry = outcome.entry;
  if (entry) {
    // The stored tick of that time adds its upstream trade id.
    const entryTrade = entry.trade_id ?? audit.get(entry.ts_ms)?.trade_id;
    audit.set(entry.ts_ms, { ts_ms: entry.ts_ms, price_e8: entry.price_e8, ...(entryTrade === undefined ? {} : { trade_id: entryTrade }), role: "entry" });
  }
  if (outcome.status !== "void") audit.set(outcome.settlement.ts_ms, { ...outcome.settlement, role: "settlement" });
  return { order, outcome, audit: [...audit.values()].sort((a, b) => a.ts_ms - b.ts_ms) };
}
