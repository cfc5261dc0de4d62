import { and, asc, desc, eq, gte, inArray, isNull, lt, lte, sql } from "drizzle-orm";
import { d1Statements, type Db } from "../../db/client";
import { refusedBy } from "../../db/refusal";
import { order_ticks, orders, product_durations, products } from "../../db/schema";
import { tradeAccounts, type Wallet } from "../ledger/accounts";
import { classifyMoneyError, transferStatements, type Transfer } from "../ledger/transfer";
import { orderRefusal, type OrderRefusal } from "../limits/limits";
import { requestHash } from "../money/request-hash";
import { settledNotices } from "../notifications/settled";
import type { Exposure } from "./exposure";
import { orderFee, settle, type Outcome, type Tick } from "./settlement";

export { orderFee };

export type Product = typeof products.$inferSelect;
export type Duration = typeof product_durations.$inferSelect;
export type Order = typeof orders.$inferSelect;
export type ProductWithDurations = Product & { durations: Duration[] };

export async function listProducts(db: Db, opts: { only_enabled: boolean }): Promise<ProductWithDurations[]> {
  const [rows, durations] = await db.batch([
    db.select().from(products).where(opts.only_enabled ? eq(products.enabled, 1) : undefined).orderBy(asc(products.sort), asc(products.id)),
    db.select().from(product_durations).orderBy(asc(product_durations.seconds)),
  ]);
  return rows.map((p) => ({ ...p, durations: durations.filter((d) => d.product_id === p.id) }));
}

export async function getProduct(db: Db, id: number): Promise<ProductWithDurations | null> {
  const p = await db.query.products.findFirst({ where: eq(products.id, id) });
  if (!p) return null;
  return { ...p, durations: await db.select().from(product_durations).where(eq(product_durations.product_id, id)).orderBy(asc(product_durations.seconds)) };
}

/** Is `now` inside the product's UTC trading window ("" = always)? Windows may wrap midnight. */
export function isTradingTime(trading_hours: string, now_ms: number): boolean {
  const m = /^(\d\d):(\d\d)-(\d\d):(\d\d)$/.exec(trading_hours.trim());
  if (!m) return true;
  const minute = Math.floor((now_ms % 86_400_000) / 60_000);
  const from = Number(m[1]) * 60 + Number(m[2]);
  const to = Number(m[3]) * 60 + Number(m[4]);
  return from <= to ? minute >= from && minute < to : minute >= from || minute < to;
}

/** |entry − quote| within the tolerance (basis points of the quote)? */
export function withinTolerance(quote_e8: number, entry_e8: number, tolerance_bp: number): boolean {
  return BigInt(Math.abs(entry_e8 - quote_e8)) * 10_000n <= BigInt(quote_e8) * BigInt(tolerance_bp);
}

export type PlaceOrder = {
  user_id: number;
  product_id: number;
  direction: "up" | "down";
  stake_micro: number;
  seconds: number;
  quote_price_e8: number;
  request_key: string;
  /** The market's terms version the order sheet showed; absent: the terms in force (API clients, the seed). */
  terms_version?: number;
};

export type PlaceResult =
  | { status: "ok"; order: Order; replayed: boolean }
  | { status: "product_unknown" | "market_closed" | "duration_unknown" | "insufficient_funds" | "idempotency_conflict" | "no_price" | "exposure_limit" }
  | { status: "price_stale" }
  /** The market's terms changed since the sheet was shown: nothing was placed. */
  | { status: "terms_changed"; terms_version: number | null }
  | OrderRefusal
  | { status: "stake_out_of_range"; min_stake_micro: number; max_stake_micro: number }
  | { status: "price_moved"; entry_price_e8: number };

/** An order that passed every check, with everything its write needs. */
export type CheckedOrder = {
  input: PlaceOrder;
  request_hash: string;
  product: Product;
  duration: Duration;
  latest: Tick;
  fee_micro: number;
  now_ms: number;
  /** The feed the ticks came from (orders table `feed`); the hub names it. */
  feed?: string;
  /** Whose money it stakes ("real" when absent; the hub of a demo deployment says "demo"). */
  wallet?: Wallet;
};

export function orderRequestHash(input: PlaceOrder): string {
  return requestHash({ product_id: input.product_id, direction: input.direction, stake_micro: input.stake_micro, seconds: input.seconds, quote_price_e8: input.quote_price_e8 });
}

/** An entry price older than this is not a market price any more: the feed has stalled. */
export const MAX_TICK_AGE_MS = 2_000;

/**
 * The rules an order must pass before any money moves, as a pure function: an enabled
 * product whose terms are the ones the user was shown, inside its trading hours, a duration it offers, a stake in range, a fresh price,
 * and an entry price (the latest tick) within the product's tolerance of the quote the user
 * saw: a moved price is refused, never filled silently.
 */
export function checkOrder(product: ProductWithDurations | null, input: PlaceOrder, latest: Tick | null, now_ms: number): { status: "ok"; order: CheckedOrder } | Exclude<PlaceResult, { status: "ok" }> {
  if (!product || product.id !== input.product_id || product.enabled !== 1) return { status: "product_unknown" };
  // Terms named by the sheet must be the terms in force: a payout or fee changed while the
  // user looked at the sheet is never applied to their order unseen.
  if (input.terms_version !== undefined && input.terms_version !== product.terms_version) return { status: "terms_changed", terms_version: product.terms_version };
  if (!isTradingTime(product.trading_hours, now_ms)) return { status: "market_closed" };
  const duration = product.durations.find((d) => d.seconds === input.seconds);
  if (!duration) return { status: "duration_unknown" };
  if (input.stake_micro < duration.min_stake_micro || input.stake_micro > duration.max_stake_micro) {
    return { status: "stake_out_of_range", min_stake_micro: duration.min_stake_micro, max_stake_micro: duration.max_stake_micro };
  }
  if (!latest) return { status: "no_price" };
  if (now_ms - latest.ts_ms > MAX_TICK_AGE_MS) return { status: "price_stale" };
  if (!withinTolerance(input.quote_price_e8, latest.price_e8, product.quote_tolerance_bp)) return { status: "price_moved", entry_price_e8: latest.price_e8 };
  const { durations: _durations, ...row } = product;
  return { status: "ok", order: { input, request_hash: orderRequestHash(input), product: row, duration, latest, fee_micro: orderFee(input.stake_micro, product.fee_rate_bp), now_ms } };
}

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

/**
 * Open orders of a symbol whose delivery time has passed, oldest delivery first and each
 * user's orders together (so a user hears once when all of theirs are settled).
 */
export async function dueOrders(db: Db, symbol: string, now_ms: number, limit = 500): Promise<Order[]> {
  return db
    .select()
    .from(orders)
    .where(and(eq(orders.status, "open"), lte(orders.delivery_at_ms, now_ms), eq(orders.symbol, symbol)))
    .orderBy(asc(orders.delivery_at_ms), asc(orders.user_id), asc(orders.id))
    .limit(limit);
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
function settlementTransfers(o: Order, outcome: Outcome): Transfer[] {
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
export type Settlement = { order: Order; outcome: Outcome; audit: AuditTick[] };

/**
 * A chunk of settlements as ONE batch of six set-based statements, however many orders it
 * holds: the transition guards, the order updates, the audit ticks, the transfer records and
 * the account balances, each over one JSON parameter (SQLite's json_each). Every statement of a
 * batch counts toward D1's 1,000 queries per invocation, so a statement per order or per
 * transfer would cap a burst at a few hundred orders per invocation. If any order of the
 * chunk is no longer open, the guard's NOT NULL fails and nothing of the chunk is written.
 */
function settlementChunkStatements(db: Db, part: readonly Settlement[], now_ms: number): D1PreparedStatement[] {
  const rows = JSON.stringify(
    part.map(({ order: o, outcome }) => {
      const at = outcome.status === "void" ? null : outcome.settlement;
      return { id: o.id, status: outcome.status, reason: outcome.status === "void" ? outcome.reason : "", price: at?.price_e8 ?? null, ts: at?.ts_ms ?? null, entry_price: outcome.entry?.price_e8 ?? null, entry_ts: outcome.entry?.ts_ms ?? null, payout: outcome.payout_micro, profit: outcome.profit_micro };
    }),
  );
  const ticks = JSON.stringify(part.flatMap((s) => s.audit.map((a) => [s.order.id, a.ts_ms, a.price_e8, a.role, a.trade_id ?? null])));
  const field = (name: string) => sql.raw(`json_extract(j.value, '$.${name}')`);
  return d1Statements(db, [
    sql`INSERT INTO transitions (entity, entity_id, from_state, to_state, actor_kind, actor_id, reason, created_at_ms)
      SELECT 'order', (SELECT o.id FROM orders o WHERE o.id = ${field("id")} AND o.status = 'open'), 'open', ${field("status")}, 'system', NULL, ${field("reason")}, ${now_ms}
      FROM json_each(${rows}) AS j`,
    // The guard above already proved every order open; joined on the primary key, so SQLite
    // looks each order up by id instead of scanning the open ones.
    // The entry the hub stored stays; one it had not stored yet is the one settlement found.
    sql`UPDATE orders SET status = s.status, settlement_price_e8 = s.price, settlement_tick_ts_ms = s.ts, payout_micro = s.payout, profit_micro = s.profit, void_reason = s.reason, settled_at_ms = ${now_ms},
        entry_price_e8 = COALESCE(orders.entry_price_e8, s.entry_price), entry_tick_ts_ms = COALESCE(orders.entry_tick_ts_ms, s.entry_ts)
      FROM (SELECT ${field("id")} AS id, ${field("status")} AS status, ${field("price")} AS price, ${field("ts")} AS ts, ${field("entry_price")} AS entry_price, ${field("entry_ts")} AS entry_ts, ${field("payout")} AS payout, ${field("profit")} AS profit, ${field("reason")} AS reason FROM json_each(${rows}) AS j) AS s
      WHERE orders.id = s.id`,
    sql`INSERT INTO order_ticks (order_id, ts_ms, price_e8, role, trade_id)
      SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'), json_extract(value, '$[4]') FROM json_each(${ticks}) WHERE true
      ON CONFLICT DO NOTHING`,
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
  return sql`INSERT INTO notifications (user_id, kind, params_json, dedupe_key, created_at_ms)
    SELECT json_extract(value, '$[0]'), 'orders_settled', json_extract(value, '$[1]'), json_extract(value, '$[2]'), ${now_ms} FROM json_each(${rows}) WHERE true
    ON CONFLICT DO NOTHING`;
}

/**
 * Many transfers as two statements: their records (each with its accounts' balances after it,
 * from running sums computed here over the list), then every touched account's balance and
 * totals updated once by its net movement. The same guarantees as one transfer at a time: a
 * reused key fails the UNIQUE on the record, an unknown account leaves a NULL id that fails
 * NOT NULL (LEFT JOIN), an overdrawn user account fails the CHECK, and the batch rolls back.
 */
function transferSetStatements(transfers: readonly Transfer[], now_ms: number) {
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
  const records = transfers.map((t) => {
    if (!Number.isSafeInteger(t.amount_micro) || t.amount_micro <= 0 || t.debit === t.credit) throw new Error(`transfer ${t.key}: invalid`);
    return [t.key, t.debit, t.credit, t.amount_micro, t.code, t.ref_type, t.ref_id, move(t.debit, t.amount_micro, 0), move(t.credit, 0, t.amount_micro)];
  });
  const accounts = [...totals].map(([key, t]) => [key, t.debits, t.credits]);
  const at = (i: number) => sql.raw(`json_extract(j.value, '$[${i}]')`);
  return [
    sql`INSERT INTO ledger_transfers (transfer_key, debit_account_id, credit_account_id, amount_micro, code, ref_type, ref_id, debit_balance_after_micro, credit_balance_after_micro, created_at_ms)
      SELECT ${at(0)}, d.id, c.id, ${at(3)}, ${at(4)}, ${at(5)}, ${at(6)}, d.balance_micro + ${at(7)}, c.balance_micro + ${at(8)}, ${now_ms}
      FROM json_each(${JSON.stringify(records)}) AS j
      LEFT JOIN ledger_accounts d ON d.account_key = ${at(1)}
      LEFT JOIN ledger_accounts c ON c.account_key = ${at(2)}
      ORDER BY j.key`,
    sql`UPDATE ledger_accounts SET balance_micro = balance_micro + m.credits - m.debits, debits_micro = debits_micro + m.debits, credits_micro = credits_micro + m.credits
      FROM (SELECT ${at(0)} AS account_key, ${at(1)} AS debits, ${at(2)} AS credits FROM json_each(${JSON.stringify(accounts)}) AS j) AS m
      WHERE ledger_accounts.account_key = m.account_key`,
  ];
}

/** Which of these orders are still open (one query; a refused chunk retries only those). */
async function stillOpen(db: Db, ids: readonly number[]): Promise<Set<number>> {
  // `+status`: by primary key, not by walking the status index (see entriesUpdate).
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

/**
 * The open risk of a symbol's orders (see exposure.ts): per side, the stakes and what a win
 * would pay beyond them (stake × rate rounded down per order, as settlement pays it).
 */
function openExposureQuery(db: Db, symbol: string) {
  return db
    .select({ direction: orders.direction, stake_micro: sql<number>`COALESCE(SUM(${orders.stake_micro}), 0)`, payout_micro: sql<number>`COALESCE(SUM(${orders.stake_micro} * ${orders.profit_rate_bp} / 10000), 0)` })
    .from(orders)
    .where(and(eq(orders.status, "open"), eq(orders.symbol, symbol)))
    .groupBy(orders.direction);
}

function exposureOf(rows: readonly { direction: "up" | "down"; stake_micro: number; payout_micro: number }[]): Exposure {
  const side = (d: "up" | "down") => {
    const r = rows.find((x) => x.direction === d);
    return { stake_micro: r?.stake_micro ?? 0, payout_micro: r?.payout_micro ?? 0 };
  };
  return { up: side("up"), down: side("down") };
}

/** A market as its hub needs it: the product, its durations and its open exposure, in one round trip. */
export async function loadMarket(db: Db, symbol: string): Promise<{ product: ProductWithDurations | null; exposure: Exposure }> {
  const [rows, durations, exposure] = await db.batch([
    db.select().from(products).where(eq(products.symbol, symbol)).limit(1),
    db.select({ d: product_durations }).from(product_durations).innerJoin(products, eq(products.id, product_durations.product_id)).where(eq(products.symbol, symbol)).orderBy(asc(product_durations.seconds)),
    openExposureQuery(db, symbol),
  ]);
  return { product: rows[0] ? { ...rows[0], durations: durations.map((r) => r.d) } : null, exposure: exposureOf(exposure) };
}

/** The entry an order already has (null: not stored yet, settlement finds it in the ticks). */
export function storedEntry(o: Pick<Order, "entry_price_e8" | "entry_tick_ts_ms">): Tick | null {
  return o.entry_price_e8 === null || o.entry_tick_ts_ms === null ? null : { ts_ms: o.entry_tick_ts_ms, price_e8: o.entry_price_e8 };
}

/** Settles orders against the symbol's ticks (oldest first), keeping the audit ticks. */
export function decide(order: Order, ticks: readonly Tick[]): Settlement {
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

function userOrdersWhere(user_id: number, which: "open" | "settled" | "all", range?: { from_ms: number; to_ms: number }) {
  const status = which === "open" ? eq(orders.status, "open") : which === "settled" ? inArray(orders.status, ["won", "lost", "tie", "void"]) : undefined;
  const within = range ? and(gte(orders.created_at_ms, range.from_ms), lt(orders.created_at_ms, range.to_ms)) : undefined;
  return and(eq(orders.user_id, user_id), status, within);
}

export async function listUserOrders(db: Db, user_id: number, which: "open" | "settled", page: { page_no: number; row: number }) {
  const where = userOrdersWhere(user_id, which);
  const items = await db.select().from(orders).where(where).orderBy(desc(orders.id)).limit(page.row).offset((page.page_no - 1) * page.row);
  const [{ total }] = await db.select({ total: sql<number>`count(*)` }).from(orders).where(where);
  return { items, total };
}

/** The order history's orders placed in [from_ms, to_ms), open and settled, newest first (the CSV export). */
export async function userOrdersBetween(db: Db, user_id: number, range: { from_ms: number; to_ms: number }, max: number): Promise<Order[]> {
  return db.select().from(orders).where(userOrdersWhere(user_id, "all", range)).orderBy(desc(orders.id)).limit(max);
}

export async function getUserOrder(db: Db, user_id: number, id: number) {
  const order = await db.query.orders.findFirst({ where: and(eq(orders.id, id), eq(orders.user_id, user_id)) });
  if (!order) return null;
  const ticks = await db.select().from(order_ticks).where(eq(order_ticks.order_id, id)).orderBy(asc(order_ticks.ts_ms));
  return { order, ticks };
}

/**
 * Stores orders' entries (the first tick after each was accepted). The orders of one beat share
 * its tick, so it is one statement per tick, over the orders' ids, each looked up by its primary
 * key. Orders no longer open, or with an entry already, are left as they are.
 */
export async function writeEntries(db: Db, entries: readonly { id: number; tick: Tick }[]): Promise<void> {
  const byTick = new Map<number, { tick: Tick; ids: number[] }>();
  for (const e of entries) {
    const group = byTick.get(e.tick.ts_ms) ?? { tick: e.tick, ids: [] };
    group.ids.push(e.id);
    byTick.set(e.tick.ts_ms, group);
  }
  for (const { tick, ids } of byTick.values()) {
    for (let i = 0; i < ids.length; i += 1_000) {
      await db.run(entriesUpdate(tick, ids.slice(i, i + 1_000)));
    }
  }
}

/**
 * One tick's entries. `+status`: the unary plus keeps SQLite off the status index, which it would
 * otherwise walk (every open order) once per id; by the primary key each order is one lookup.
 * (tests/api/trades/query-plans.test.ts holds the plan.)
 */
export function entriesUpdate(tick: Tick, ids: readonly number[]) {
  return sql`UPDATE orders SET entry_price_e8 = ${tick.price_e8}, entry_tick_ts_ms = ${tick.ts_ms}
    WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)})) AND +status = 'open' AND entry_price_e8 IS NULL`;
}

/** A symbol's open orders still without an entry (a restarted hub's waiting list). */
export async function ordersAwaitingEntry(db: Db, symbol: string): Promise<{ id: number; user_id: number; accepted_at_ms: number }[]> {
  return db
    .select({ id: orders.id, user_id: orders.user_id, accepted_at_ms: orders.created_at_ms })
    .from(orders)
    .where(and(eq(orders.status, "open"), eq(orders.symbol, symbol), isNull(orders.entry_price_e8)));
}
