/**
 * Writing orders: each order's row with its stake and fee transfers, several orders in one batch
 * of set statements (group commit), a refused group sorted so that each order gets its own
 * answer, and replays answered with the order first written.
 */
import { and, eq, sql } from "drizzle-orm";
import { d1Statements, fixedStatement, jsonAt, type Db } from "../../db/client";
import { refusedBy } from "../../db/refusal";
import { orders } from "../../db/schema";
import { tradeAccounts } from "../ledger/accounts";
import { classifyMoneyError, transferSetStatements, transferStatements, type SetTransfer, type Transfer } from "../ledger/transfer";
import { orderRefusal } from "../limits/limits";
import type { Tick } from "./settlement";
import type { Order } from "./orders";
import { getProduct } from "./products";
import { type PlaceOrder, type PlaceResult, type CheckedOrder, orderRequestHash, checkOrder } from "./order-check";

/**
 * A refused check may hide a retry of an order that was placed (the price has moved since,
 * or the product was paused): the same key and body answer with that order, as promised.
 */
export async function replayOf(db: Db, input: PlaceOrder): Promise<PlaceResult | null> {
  const existing = await findByRequest(db, input.user_id, input.request_key);
  return existing ? replayAnswer(existing, input) : null;
}

/** The answer to a request already written: the same body is a replay of its order, another a conflict. */
function replayAnswer(existing: Order, input: PlaceOrder): PlaceResult {
  return existing.request_hash === orderRequestHash(input) ? { status: "ok", order: existing, replayed: true } : { status: "idempotency_conflict" };
}

/**
 * One order written: the order row (returned), the stake to locked_trade and the fee to the
 * platform's fees, all in one batch. The keys derive from the client's request key, so a
 * replay can never move money twice.
 */
function orderStatements(db: Db, o: CheckedOrder): D1PreparedStatement[] {
  const { input, product, duration, fee_micro, now_ms } = o;
  const order_id = sql`(SELECT id FROM orders WHERE user_id = ${input.user_id} AND request_key = ${input.request_key})`;
  const ref_id = sql`CAST(${order_id} AS TEXT)` as unknown as string;
  const transfers: Transfer[] = orderTransfers(o).map(({ key, debit, credit, amount_micro, code, ref_type }) => ({ key, debit, credit, amount_micro, code, ref_type, ref_id }));
  return d1Statements(db, [
    db
      .insert(orders)
      .values({
        user_id: input.user_id,
        product_id: product.id,
        symbol: product.symbol,
        direction: input.direction,
        stake_micro: input.stake_micro,
        fee_micro,
        profit_rate_bp: duration.profit_rate_bp,
        seconds: duration.seconds,
        quote_price_e8: input.quote_price_e8,
        // The entry is the first tick after this moment: stored at the hub's next beat.
        entry_price_e8: null,
        entry_tick_ts_ms: null,
        created_at_ms: now_ms,
        delivery_at_ms: now_ms + duration.seconds * 1000,
        status: "open",
        request_key: input.request_key,
        request_hash: o.request_hash,
        feed: o.feed ?? "simulation",
        terms_version: product.terms_version,
        wallet: o.wallet ?? "real",
      })
      .returning(),
    ...transfers.flatMap((t) => transferStatements(t, now_ms)),
  ]);
}

/**
 * The database refused an order written under terms no longer in force (`orders_terms_in_force`:
 * a hub still holding old terms after another operator opened new ones).
 */
function termsRefused(err: unknown): boolean {
  return refusedBy(err, [["orders_terms_changed", "terms_changed"] as const]) !== null;
}

/** Is this error one of the database's refusals of an order (funds, a limit, exclusion, terms, a reused key)? */
function refusedOrder(err: unknown): boolean {
  return classifyMoneyError(err) !== null || orderRefusal(err) !== null || termsRefused(err);
}

/** An order's stake and fee, keyed by its request so a replay can never move money twice. */
function orderTransfers(o: CheckedOrder): SetTransfer[] {
  const { input, fee_micro, now_ms } = o;
  const a = tradeAccounts(input.user_id, o.wallet ?? "real");
  const base = `order:${input.user_id}:${input.request_key}`;
  const ref_order = { user_id: input.user_id, request_key: input.request_key };
  const out: SetTransfer[] = [{ key: `${base}:stake`, debit: a.free, credit: a.locked, amount_micro: input.stake_micro, code: "trade_stake", ref_type: "order", ref_order, at_ms: now_ms }];
  if (fee_micro > 0) out.push({ key: `${base}:fee`, debit: a.free, credit: a.fees, amount_micro: fee_micro, code: "trade_fee", ref_type: "order", ref_order, at_ms: now_ms });
  return out;
}

/**
 * A group of orders as THREE statements, however many it holds: the order rows (one INSERT over
 * one JSON parameter, in the group's order, returned), then their stakes and fees through the
 * ledger's set statements (records in the same order, then each account once). The rows, ids,
 * balances after and log entries are the ones `orderStatements` would write order by order
 * (tests/api/trades/order-groups.test.ts compares them). The triggers and constraints judge each
 * row as they do one at a time: the limits trigger sees the rows this statement inserted before
 * it, the CHECK sees each user's balance after all of their orders (order legs only take from a
 * user's free balance, so the final balance is the lowest). Any refusal rolls back the group.
 */
export function orderSetStatements(db: Db, items: readonly CheckedOrder[]): D1PreparedStatement[] {
  const rows = JSON.stringify(
    items.map(({ input, product, duration, fee_micro, now_ms, request_hash, feed, wallet }) => [
      input.user_id, product.id, product.symbol, input.direction, input.stake_micro, fee_micro, duration.profit_rate_bp, duration.seconds, input.quote_price_e8,
      now_ms, now_ms + duration.seconds * 1000, input.request_key, request_hash, feed ?? "simulation", product.terms_version, wallet ?? "real",
    ]),
  );
  // The entry is the first tick after the order's moment: stored at the hub's next beat (NULL here).
  return d1Statements(db, [ORDER_ROWS(rows), ...transferSetStatements(items.flatMap(orderTransfers), items[0]?.now_ms ?? 0)]);
}

const at = (i: number) => jsonAt(i);
/** A group's order rows, from one JSON parameter, returned (rendered once: client.ts `fixedStatement`). */
const ORDER_ROWS = fixedStatement(sql`INSERT INTO orders (user_id, product_id, symbol, direction, stake_micro, fee_micro, profit_rate_bp, seconds, quote_price_e8, created_at_ms, delivery_at_ms, status, request_key, request_hash, feed, terms_version, wallet)
      SELECT ${at(0)}, ${at(1)}, ${at(2)}, ${at(3)}, ${at(4)}, ${at(5)}, ${at(6)}, ${at(7)}, ${at(8)}, ${at(9)}, ${at(10)}, 'open', ${at(11)}, ${at(12)}, ${at(13)}, ${at(14)}, ${at(15)}
      FROM json_each(${sql.placeholder("rows")}) ORDER BY key
      RETURNING *`);

/** A group in one batch of set statements; null when the database refused an order of it (nothing was written). */
async function writeGroup(db: Db, items: readonly CheckedOrder[]): Promise<PlaceResult[] | null> {
  let written: Order[];
  try {
    written = (await db.$client.batch<Order>(orderSetStatements(db, items)))[0].results;
  } catch (err) {
    if (refusedOrder(err)) return null;
    throw err;
  }
  // RETURNING promises no order: each row finds its order by request (unique per user).
  const byRequest = new Map(written.map((row) => [`${row.user_id}:${row.request_key}`, row]));
  return items.map((o) => {
    const order = byRequest.get(`${o.input.user_id}:${o.input.request_key}`);
    if (!order) throw new Error(`order group: no row returned for ${o.input.user_id}:${o.input.request_key}`);
    return { status: "ok", order, replayed: false } as const;
  });
}

/** A refused group at most this large is written one order at a time; a larger one is halved. */
export const ORDER_GROUP_SPLIT_AT = 4;

/**
 * Writes checked orders. Several at once go in ONE batch of three set statements (group commit:
 * the QuoteHub gathers the orders that arrive while its previous write is in flight), because a
 * database round trip costs far more than the statements in it. If the database refuses an
 * order of the group (funds, a trading limit, self-exclusion, old terms, a replay or a reused
 * key), nothing of it was written, and each order still gets the answer it would get written
 * alone, in the group's order (decision 147):
 * 1. one read (`classifyGroup`) finds the orders that could be refused, per user;
 * 2. replays and idempotency conflicts are answered from that read;
 * 3. each user's orders from their first suspect on are written one at a time (`writeOne`: the
 *    database judges each); the runs of other orders between them each in one set batch, so
 *    every row is written in the group's order, as if its orders were written one by one;
 * 4. if that batch is refused anyway (a suspect the read missed, or another writer in between),
 *    it is halved until each order has its answer (`writeOrdersHalving`).
 * Every rule that decides is a check, trigger or constraint of the database; the read only
 * chooses which orders go one at a time, so a wrong guess costs round trips, never an answer.
 * Results come back in the order of `items`.
 */
export async function writeOrders(db: Db, items: readonly CheckedOrder[]): Promise<PlaceResult[]> {
  if (items.length === 0) return [];
  const written = await writeGroup(db, items);
  if (written) return written;
  // One order refused: written alone, the database's refusal is its answer.
  if (items.length === 1) return [await writeOne(db, items[0])];
  const verdicts = await classifyGroup(db, items);
  const results: PlaceResult[] = new Array(items.length);
  const suspectUsers = new Set<number>();
  const seen = new Set<string>();
  const left = new Map<string, number>();
  // Orders in the group's order, so ids, balances after and log entries are the ones of writing
  // them one at a time: a run of unsuspected orders in one batch, each suspect alone.
  let run: number[] = [];
  const flush = async () => {
    if (run.length === 0) return;
    const part = run.map((i) => items[i]);
    const written = (await writeGroup(db, part)) ?? (await writeOrdersHalving(db, part));
    run.forEach((i, k) => (results[i] = written[k]));
    run = [];
  };
  for (const [i, o] of items.entries()) {
    const v = verdicts[i];
    const user = o.input.user_id;
    if (v.existing) {
      results[i] = replayAnswer(v.existing, o.input);
      continue;
    }
    const request = `${user}:${o.input.request_key}`;
    const free = tradeAccounts(user, o.wallet ?? "real").free;
    const cost = o.input.stake_micro + o.fee_micro;
    const funds = left.has(free) ? left.get(free)! : v.free_micro;
    const suspect = suspectUsers.has(user) || seen.has(request) || v.excluded || v.limited || v.terms_version !== o.product.terms_version || funds === null || funds < cost;
    seen.add(request);
    if (suspect) {
      suspectUsers.add(user);
      await flush();
      results[i] = await writeOne(db, o);
    } else {
      left.set(free, funds - cost);
      run.push(i);
    }
  }
  await flush();
  return results;
}

/** The read of `classifyGroup` (exported for its query-plan test): each lookup by a unique key or index. */
export function groupVerdictsQuery(items: readonly CheckedOrder[]) {
  const rows = JSON.stringify(items.map((o) => [o.input.user_id, o.input.request_key, tradeAccounts(o.input.user_id, o.wallet ?? "real").free, o.product.id, o.now_ms]));
  const at = (i: number) => jsonAt(i, "j.value");
  return sql`SELECT j.key AS c_at,
      (SELECT a.balance_micro FROM ledger_accounts a WHERE a.account_key = ${at(2)}) AS c_free,
      EXISTS (SELECT 1 FROM self_exclusions s WHERE s.user_id = ${at(0)} AND s.until_ms > ${at(4)}) AS c_excluded,
      EXISTS (SELECT 1 FROM trading_limits l WHERE l.user_id = ${at(0)}) AS c_limited,
      (SELECT p.terms_version FROM products p WHERE p.id = ${at(3)}) AS c_terms,
      o.*
    FROM json_each(${rows}) AS j
    LEFT JOIN orders o ON o.user_id = ${at(0)} AND o.request_key = ${at(1)}
    ORDER BY j.key`;
}

type Verdict = { existing: Order | null; free_micro: number | null; excluded: boolean; limited: boolean; terms_version: number | null };

/**
 * One read-only query: for each order of a refused group, what could refuse it. The order
 * already written under its request (a replay or a conflict), the balance it would take from,
 * the self-exclusion trigger's condition (copied from migration 0029's `orders_self_excluded`),
 * whether the user has any trading limit (all seven kinds are left to the trigger), and the
 * product's terms in force. Funds and same-group duplicates are worked out from it in order.
 */
async function classifyGroup(db: Db, items: readonly CheckedOrder[]): Promise<Verdict[]> {
  const found = await db.all<Order & { c_at: number; c_free: number | null; c_excluded: number; c_limited: number; c_terms: number | null }>(groupVerdictsQuery(items));
  const out: Verdict[] = new Array(items.length);
  for (const { c_at, c_free, c_excluded, c_limited, c_terms, ...order } of found) {
    out[c_at] = { existing: order.id === null ? null : order, free_micro: c_free, excluded: c_excluded === 1, limited: c_limited === 1, terms_version: c_terms };
  }
  return out;
}

/**
 * The refused group's path before decision 147, kept as the last resort (now with set batches):
 * the group in one batch, a refused one halved down to groups of `ORDER_GROUP_SPLIT_AT`, written
 * one order at a time. One refused order in a group of n costs about 2·log2(n) more batches.
 */
export async function writeOrdersHalving(db: Db, items: readonly CheckedOrder[]): Promise<PlaceResult[]> {
  if (items.length > 1) {
    const written = await writeGroup(db, items);
    if (written) return written;
    if (items.length > ORDER_GROUP_SPLIT_AT) {
      const half = Math.ceil(items.length / 2);
      return [...(await writeOrdersHalving(db, items.slice(0, half))), ...(await writeOrdersHalving(db, items.slice(half)))];
    }
  }
  const out: PlaceResult[] = [];
  for (const o of items) out.push(await writeOne(db, o));
  return out;
}

/**
 * One order in its own batch of five statements (`orderStatements`), its refusal named: the
 * answer every order of a group must get (tests/api/trades/order-groups.test.ts holds the group
 * path to it).
 */
export async function writeOne(db: Db, o: CheckedOrder): Promise<PlaceResult> {
  try {
    const [inserted] = await db.$client.batch<Order>(orderStatements(db, o));
    return { status: "ok", order: inserted.results[0], replayed: false };
  } catch (err) {
    const refusal = orderRefusal(err) ?? (termsRefused(err) ? ({ status: "terms_changed", terms_version: null } as const) : null);
    // The trigger counts a retry's own first copy against the limit: a replay answers first.
    if (refusal) return (await replayOf(db, o.input)) ?? refusal;
    const failure = classifyMoneyError(err);
    if (failure === "insufficient_funds") return { status: "insufficient_funds" };
    if (failure === "duplicate_request" || failure === "duplicate") {
      const replay = await replayOf(db, o.input);
      if (replay) return replay;
    }
    throw err;
  }
}

/** Checks and writes one order at `latest` (tests, the bench, and any caller without a hub). */
export async function placeOrder(db: Db, input: PlaceOrder, latest: Tick | null, now_ms: number): Promise<PlaceResult> {
  const checked = checkOrder(await getProduct(db, input.product_id), input, latest, now_ms);
  if (checked.status !== "ok") return (await replayOf(db, input)) ?? checked;
  return (await writeOrders(db, [checked.order]))[0];
}

function findByRequest(db: Db, user_id: number, request_key: string) {
  return db.query.orders.findFirst({ where: and(eq(orders.user_id, user_id), eq(orders.request_key, request_key)) });
}
