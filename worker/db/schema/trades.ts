import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** A tradable currency pair and how it trades (operator config). Prices are × 10^8 integers. */
export const products = sqliteTable(
  "products",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** "BTC/USDT": also the QuoteHub Durable Object's name. */
    symbol: text("symbol").notNull(),
    name: text("name").notNull(),
    /** The real feed's symbol ("BTCUSDT") when a real exchange is configured. */
    feed_symbol: text("feed_symbol").notNull(),
    /** Where the simulated walk starts, and its price grid. */
    start_price_e8: integer("start_price_e8").notNull(),
    tick_size_e8: integer("tick_size_e8").notNull(),
    /** Service fee on the stake, in basis points. */
    fee_rate_bp: integer("fee_rate_bp").notNull(),
    /** How far the price may move from the quote the user saw before the order is refused. */
    quote_tolerance_bp: integer("quote_tolerance_bp").notNull(),
    /** UTC trading window "HH:MM-HH:MM", or "" for around the clock. */
    trading_hours: text("trading_hours").notNull().default(""),
    /**
     * Risk limit: the most the platform may lose if one side of the open orders wins (their
     * payouts beyond the stakes, less the other side's stakes). Orders past it are refused.
     */
    exposure_limit_micro: integer("exposure_limit_micro").notNull().default(100_000_000_000),
    enabled: integer("enabled").notNull().default(1),
    sort: integer("sort").notNull().default(0),
    /**
     * The market's terms (fee, exposure limit, trading hours, durations with their payout
     * rates and stakes) are versioned: a change is a proposal that a different operator opens
     * (worker/domain/terms/), which bumps the version. An order names the version it was shown.
     */
    terms_version: integer("terms_version").notNull().default(1),
    /** Who proposed and who opened the terms in force (both null: set by the seed or a script). */
    terms_by: integer("terms_by"),
    terms_opened_by: integer("terms_opened_by"),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [
    uniqueIndex("products_symbol_unique").on(t.symbol),
    check("products_positive", sql`${t.start_price_e8} > 0 AND ${t.tick_size_e8} > 0 AND ${t.fee_rate_bp} >= 0 AND ${t.fee_rate_bp} <= 10000 AND ${t.quote_tolerance_bp} >= 0`),
  ],
);

/** Delivery durations offered for a product, each with its profit rate and stake limits. */
export const product_durations = sqliteTable(
  "product_durations",
  {
    product_id: integer("product_id").notNull(),
    seconds: integer("seconds").notNull(),
    profit_rate_bp: integer("profit_rate_bp").notNull(),
    min_stake_micro: integer("min_stake_micro").notNull(),
    max_stake_micro: integer("max_stake_micro").notNull(),
    /** The product's terms version these rows belong to (written only with a new version). */
    terms_version: integer("terms_version").notNull().default(1),
  },
  (t) => [
    primaryKey({ columns: [t.product_id, t.seconds] }),
    check("product_durations_valid", sql`${t.seconds} > 0 AND ${t.profit_rate_bp} > 0 AND ${t.min_stake_micro} > 0 AND ${t.max_stake_micro} >= ${t.min_stake_micro}`),
  ],
);

/**
 * Timed up/down orders. The outcome columns are written once, by settlement, from the price
 * feed's ticks; no code path or role sets them otherwise (the transition guard and the status
 * CHECK make "open" the only state an outcome can be written from).
 */
export const orders = sqliteTable(
  "orders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    user_id: integer("user_id").notNull(),
    product_id: integer("product_id").notNull(),
    symbol: text("symbol").notNull(),
    direction: text("direction", { enum: ["up", "down"] }).notNull(),
    stake_micro: integer("stake_micro").notNull(),
    fee_micro: integer("fee_micro").notNull(),
    profit_rate_bp: integer("profit_rate_bp").notNull(),
    seconds: integer("seconds").notNull(),
    quote_price_e8: integer("quote_price_e8").notNull(),
    /**
     * The entry: the first tick after the order was accepted (`created_at_ms`), so no view of
     * the market from before the order decides it. Null until that tick arrives (the hub writes
     * it at its next beat; settlement finds it in the ticks if the hub could not).
     */
    entry_price_e8: integer("entry_price_e8"),
    entry_tick_ts_ms: integer("entry_tick_ts_ms"),
    created_at_ms: integer("created_at_ms").notNull(),
    delivery_at_ms: integer("delivery_at_ms").notNull(),
    status: text("status", { enum: ["open", "won", "lost", "tie", "void"] }).notNull(),
    settlement_price_e8: integer("settlement_price_e8"),
    settlement_tick_ts_ms: integer("settlement_tick_ts_ms"),
    payout_micro: integer("payout_micro"),
    profit_micro: integer("profit_micro"),
    void_reason: text("void_reason").notNull().default(""),
    settled_at_ms: integer("settled_at_ms"),
    request_key: text("request_key").notNull(),
    request_hash: text("request_hash").notNull(),
    /** Where the ticks came from: "simulation" (the committed hourly walk) or "binance:<SYMBOL>". */
    feed: text("feed").notNull().default("simulation"),
    /** The market's terms version the order was placed under (a trigger holds it to the one in force). */
    terms_version: integer("terms_version").notNull().default(1),
    /** Whose money: "real", or "demo" (a demo deployment's own accounts, never withdrawable). */
    wallet: text("wallet", { enum: ["real", "demo"] }).notNull().default("real"),
    /**
     * The ticks the order's audit shows (around acceptance and around delivery, the two that
     * decided it marked), written once by the settling UPDATE and frozen with the order by
     * `orders_settled_frozen`: JSON `[[ts_ms, price_e8, role, trade_id | null], ...]`, oldest
     * first. Null while open, and for orders settled before migration 0035, whose ticks are
     * rows of `order_ticks` (decision 169; read both ways by `orderTicks`, orders.ts).
     */
    audit_ticks: text("audit_ticks"),
  },
  (t) => [
    uniqueIndex("orders_request_unique").on(t.user_id, t.request_key),
    index("orders_user_idx").on(t.user_id, t.status, t.id),
    index("orders_due_idx").on(t.status, t.delivery_at_ms),
    // A hub's due orders in the order it settles them (settlement-writes.ts dueOrders): a read
    // of the next chunk walks only open orders and sorts nothing, however many share the second.
    index("orders_open_due_idx").on(t.symbol, t.delivery_at_ms, t.user_id).where(sql`${t.status} = 'open'`),
    check("orders_amounts", sql`${t.stake_micro} > 0 AND ${t.fee_micro} >= 0 AND (${t.entry_price_e8} IS NULL OR ${t.entry_price_e8} > 0) AND ${t.delivery_at_ms} > ${t.created_at_ms}`),
  ],
);

/**
 * The audit ticks of orders settled before migration 0035, a row each (append-only). Settlement
 * no longer writes here: an order's ticks are its `audit_ticks` column (decision 169).
 */
export const order_ticks = sqliteTable(
  "order_ticks",
  {
    order_id: integer("order_id").notNull(),
    ts_ms: integer("ts_ms").notNull(),
    price_e8: integer("price_e8").notNull(),
    role: text("role", { enum: ["entry", "settlement", "context"] }).notNull(),
    /** The upstream exchange's own id of the trade this tick is (null for the simulation). */
    trade_id: text("trade_id"),
  },
  (t) => [primaryKey({ columns: [t.order_id, t.ts_ms] })],
);

/**
 * A proposed change of terms: a market's (kind "market", target its symbol; a new market too)
 * or a withdrawal channel's (kind "withdrawal", target "trc20" or "bank"). The terms in force
 * stand until a different operator opens it; opening writes them with a new terms version in
 * the same batch. `base_version` is the version it was proposed against: if the terms changed
 * since, it cannot be opened (it would undo the change unseen).
 */
export const terms_proposals = sqliteTable(
  "terms_proposals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    kind: text("kind", { enum: ["market", "withdrawal"] }).notNull(),
    target: text("target").notNull(),
    /** The complete terms proposed, and those in force when proposed (null: a new market). */
    terms_json: text("terms_json").notNull(),
    before_json: text("before_json"),
    base_version: integer("base_version").notNull(),
    reason: text("reason").notNull(),
    proposed_by: integer("proposed_by").notNull(),
    proposed_at_ms: integer("proposed_at_ms").notNull(),
    status: text("status", { enum: ["pending", "opened", "declined"] }).notNull(),
    decided_by: integer("decided_by"),
    decided_at_ms: integer("decided_at_ms"),
    decline_reason: text("decline_reason").notNull().default(""),
    /** The terms version opening it made. */
    opened_version: integer("opened_version"),
  },
  (t) => [
    index("terms_proposals_status_idx").on(t.status, t.kind, t.target),
    check("terms_proposals_two_people", sql`${t.status} <> 'opened' OR (${t.decided_by} IS NOT NULL AND ${t.decided_by} <> ${t.proposed_by} AND ${t.opened_version} IS NOT NULL)`),
  ],
);
