import { sql } from "drizzle-orm";
import { check, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The responsible-trading limits a user can set on themselves. The list lives with the table
 * because the table's CHECK is built from it; the order trigger (hand-written in the migration)
 * names each one in its refusal.
 */
export const LIMIT_KINDS = ["daily_stake", "weekly_stake", "monthly_stake", "daily_loss", "weekly_loss", "monthly_loss", "max_open_orders"] as const;

/**
 * One row per user and limit. `value` is in force now (micro-USDT, or a count for
 * max_open_orders; NULL: no limit). A loosening (raise or removal) waits: it sits in
 * `pending_value` until `pending_at_ms`, and from then on it is the one in force, read so by
 * the order trigger without anyone having to fold it in. `pending_at_ms` NULL: nothing pending.
 */
export const trading_limits = sqliteTable(
  "trading_limits",
  {
    user_id: integer("user_id").notNull(),
    kind: text("kind", { enum: LIMIT_KINDS }).notNull(),
    value: integer("value"),
    pending_value: integer("pending_value"),
    pending_at_ms: integer("pending_at_ms"),
    updated_at_ms: integer("updated_at_ms").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.user_id, t.kind] }),
    check("trading_limits_kind", sql.raw(`kind in (${LIMIT_KINDS.map((k) => `'${k}'`).join(",")})`)),
    check("trading_limits_positive", sql`(${t.value} IS NULL OR ${t.value} > 0) AND (${t.pending_value} IS NULL OR ${t.pending_value} > 0)`),
  ],
);

export const SELF_EXCLUSION_KINDS = ["cool_off", "exclusion"] as const;

/**
 * A cool-off or self-exclusion: no orders and no deposits until `until_ms`. One row per user;
 * a trigger (hand-written in the migration) refuses any update that brings `until_ms` earlier
 * and any delete, so nobody, operators included, can end one early.
 */
export const self_exclusions = sqliteTable(
  "self_exclusions",
  {
    user_id: integer("user_id").primaryKey(),
    kind: text("kind", { enum: SELF_EXCLUSION_KINDS }).notNull(),
    started_at_ms: integer("started_at_ms").notNull(),
    until_ms: integer("until_ms").notNull(),
  },
  (t) => [check("self_exclusions_kind", sql`${t.kind} in ('cool_off','exclusion') AND ${t.until_ms} > ${t.started_at_ms}`)],
);
