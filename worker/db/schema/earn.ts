import { sql } from "drizzle-orm";
import { secondOperatorCheck, secondOperatorColumns } from "./second-operator";
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Liquidity-pool ("loan service") products: a cycle in days, a daily reward rate, amount limits
 * and an early-redemption penalty ratio (per remaining day). Rates are basis points: 0.68 % a
 * day is 68, a 1 % ratio is 100.
 */
export const pool_products = sqliteTable(
  "pool_products",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    days: integer("days").notNull(),
    daily_rate_bp: integer("daily_rate_bp").notNull(),
    min_amount_micro: integer("min_amount_micro").notNull(),
    max_amount_micro: integer("max_amount_micro").notNull(),
    penalty_rate_bp: integer("penalty_rate_bp").notNull(),
    /** Four eyes: whoever set the terms cannot open it; another operator must. */
    ...secondOperatorColumns(),
    sort: integer("sort").notNull().default(0),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [
    secondOperatorCheck("pool_products_four_eyes", t),
    check(
      "pool_products_valid",
      sql`${t.days} > 0 AND ${t.daily_rate_bp} > 0 AND ${t.penalty_rate_bp} >= 0 AND ${t.min_amount_micro} > 0 AND ${t.max_amount_micro} >= ${t.min_amount_micro}`,
    ),
  ],
);

/**
 * A user's pool order. Its terms are copied from the product at purchase (what was shown is
 * what pays). The principal sits in the user's `locked_pool` account; a reward is credited per
 * completed day (`days_paid` counts them, each day's transfer keyed by order and day).
 */
export const pool_orders = sqliteTable(
  "pool_orders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    user_id: integer("user_id").notNull(),
    product_id: integer("product_id").notNull(),
    amount_micro: integer("amount_micro").notNull(),
    days: integer("days").notNull(),
    daily_rate_bp: integer("daily_rate_bp").notNull(),
    penalty_rate_bp: integer("penalty_rate_bp").notNull(),
    started_at_ms: integer("started_at_ms").notNull(),
    expires_at_ms: integer("expires_at_ms").notNull(),
    /** pending (running) → settled (matured, principal back) | redeemed (early, penalty taken). */
    status: text("status", { enum: ["pending", "settled", "redeemed"] }).notNull(),
    days_paid: integer("days_paid").notNull().default(0),
    reward_paid_micro: integer("reward_paid_micro").notNull().default(0),
    penalty_micro: integer("penalty_micro"),
    redeem_amount_micro: integer("redeem_amount_micro"),
    closed_at_ms: integer("closed_at_ms"),
    request_key: text("request_key").notNull(),
    request_hash: text("request_hash").notNull(),
  },
  (t) => [
    uniqueIndex("pool_orders_request_unique").on(t.user_id, t.request_key),
    index("pool_orders_user_idx").on(t.user_id, t.id),
    index("pool_orders_due_idx").on(t.status, t.started_at_ms),
    check("pool_orders_valid", sql`${t.amount_micro} > 0 AND ${t.days} > 0 AND ${t.days_paid} >= 0 AND ${t.days_paid} <= ${t.days} AND ${t.reward_paid_micro} >= 0`),
  ],
);

/** Cloud-miner plans: a price, a cycle in days, a fixed daily output, and how many are left. */
export const miner_plans = sqliteTable(
  "miner_plans",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    price_micro: integer("price_micro").notNull(),
    days: integer("days").notNull(),
    daily_output_micro: integer("daily_output_micro").notNull(),
    stock: integer("stock").notNull(),
    /** Four eyes, as for pool products. */
    ...secondOperatorColumns(),
    sort: integer("sort").notNull().default(0),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [
    secondOperatorCheck("miner_plans_four_eyes", t),
    check("miner_plans_valid", sql`${t.price_micro} > 0 AND ${t.days} > 0 AND ${t.daily_output_micro} > 0 AND ${t.stock} >= 0`),
  ],
);

/** A machine a user bought: the plan's terms at purchase, and the days credited so far. */
export const miner_machines = sqliteTable(
  "miner_machines",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    user_id: integer("user_id").notNull(),
    plan_id: integer("plan_id").notNull(),
    price_micro: integer("price_micro").notNull(),
    days: integer("days").notNull(),
    daily_output_micro: integer("daily_output_micro").notNull(),
    started_at_ms: integer("started_at_ms").notNull(),
    ends_at_ms: integer("ends_at_ms").notNull(),
    status: text("status", { enum: ["running", "ended"] }).notNull(),
    days_paid: integer("days_paid").notNull().default(0),
    request_key: text("request_key").notNull(),
    request_hash: text("request_hash").notNull(),
  },
  (t) => [
    uniqueIndex("miner_machines_request_unique").on(t.user_id, t.request_key),
    index("miner_machines_user_idx").on(t.user_id, t.id),
    index("miner_machines_due_idx").on(t.status, t.started_at_ms),
    check("miner_machines_valid", sql`${t.price_micro} > 0 AND ${t.days} > 0 AND ${t.days_paid} >= 0 AND ${t.days_paid} <= ${t.days}`),
  ],
);

/** Each day's output of each machine (the results list), written once per machine and day. */
export const miner_outputs = sqliteTable(
  "miner_outputs",
  {
    machine_id: integer("machine_id").notNull(),
    user_id: integer("user_id").notNull(),
    day: integer("day").notNull(),
    output_micro: integer("output_micro").notNull(),
    credited_at_ms: integer("credited_at_ms").notNull(),
  },
  (t) => [primaryKey({ columns: [t.machine_id, t.day] }), index("miner_outputs_user_idx").on(t.user_id, t.credited_at_ms)],
);
