/**
 * Writing orders: each order's row with its stake and fee transfers, several orders in one batch
 * (group commit), a refused group split until each order has its own answer, and replays
 * answered with the order first written.
 */
import { and, eq, sql } from "drizzle-orm";
import { d1Statements, type Db } from "../../db/client";
import { refusedBy } from "../../db/refusal";
import { orders } from "../../db/schema";
import { tradeAccounts } from "../ledger/accounts";
import { classifyMoneyError, transferStatements, type Transfer } from "../ledger/transfer";
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
  if (!existing) return null;
  return existing.request_hash === orderRequestHash(input) ? { status: "ok", order: existing, replayed: true } : { status: "idempotency_conflict" };
}

/**
 * One order written: the order row (returned), the stake to locked_trade and the fee to the
 * platform's fees, all in one batch. The keys derive from the client's request key, so a
 * replay can never move money twice.
 */
function orderStatements(db: Db, o: CheckedOrder): D1PreparedStatement[] {
  const { input, product, duration, latest, fee_micro, now_ms } = o;
  const order_id = sql`(SELECT id FROM orders WHERE user_id = ${input.user_id} AND request_key = ${input.request_key})`;
  const ref = sql`CAST(${order_id} AS TEXT)` as unknown as string;
  const base = `order:${input.user_id}:${input.request_key}`;
  const a = tradeAccounts(input.user_id, o.wallet ?? "real");
  const transfers: Transfer[] = [{ key: `${base}:stake`, debit: a.free, credit: a.locked, amount_micro: input.stake_micro, code: "trade_stake", ref_type: "order", ref_id: ref }];
  if (fee_micro > 0) transfers.push({ key: `${base}:fee`, debit: a.free, credit: a.fees, amount_micro: fee_micro, code: "trade_fee", ref_type: "order", ref_id: ref });
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

/** A refused group at most this large is written one order at a time; a larger one is halved. */
export const ORDER_GROUP_SPLIT_AT = 4;

/**
 * Writes checked orders. Several at once go in ONE batch (group commit: the QuoteHub gathers
 * the orders that arrive while its previous write is in flight), because a database round
 * trip costs far more than the statements in it. If the group is refused (one order lacks
 * funds, or is a replay, or meets the user's own limit) nothing of it was written: it is split
 * in halves and each half written the same way, down to groups of `ORDER_GROUP_SPLIT_AT` that
 * are written one order at a time for their own answers. One refused order in a group of n
 * so costs about 2·log2(n) more batches, not n, and the others are still written in groups.
 * Results come back in the order of `items`.
 */
export async function writeOrders(db: Db, items: readonly CheckedOrder[]): Promise<PlaceResult[]> {
  if (items.length > 1) {
    const parts = items.map((o) => orderStatements(db, o));
    try {
      const results = await db.$client.batch<Order>(parts.flat());
      let at = 0;
      return parts.map((statements) => {
        const row = results[at].results[0];
        at += statements.length;
        return { status: "ok", order: row, replayed: false } as const;
      });
    } catch (err) {
      if (!classifyMoneyError(err) && !orderRefusal(err) && !termsRefused(err)) throw err;
    }
    if (items.length > ORDER_GROUP_SPLIT_AT) {
      const half = Math.ceil(items.length / 2);
      return [...(await writeOrders(db, items.slice(0, half))), ...(await writeOrders(db, items.slice(half)))];
    }
  }
  const out: PlaceResult[] = [];
  for (const o of items) out.push(await writeOne(db, o));
  return out;
}

async function writeOne(db: Db, o: CheckedOrder): Promise<PlaceResult> {
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
