import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { secondOperatorCheck, secondOperatorColumns } from "./second-operator";

/**
 * Operator-defined promotions. One kind so far, `recharge_bonus`: a percent of one qualifying
 * deposit (approved, made inside the period, at least the minimum), never above the cap.
 * Titles and terms per language live in `texts_json` ({"en": {"title", "terms"}, ...}).
 * The money terms (percent, cap, minimum) freeze once a bonus is pending or paid (a trigger in
 * the migration), and whoever set them cannot open the promotion (second-operator columns).
 */
export const promotions = sqliteTable(
  "promotions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    kind: text("kind", { enum: ["recharge_bonus"] }).notNull(),
    texts_json: text("texts_json").notNull(),
    /** Basis points of the deposit's credited amount: 10 % is 1000. */
    percent_bp: integer("percent_bp").notNull(),
    cap_micro: integer("cap_micro").notNull(),
    min_deposit_micro: integer("min_deposit_micro").notNull(),
    /** The period, [starts, ends) in ms: bookings and qualifying deposits fall inside it. */
    starts_at_ms: integer("starts_at_ms").notNull(),
    ends_at_ms: integer("ends_at_ms").notNull(),
    ...secondOperatorColumns(),
    sort: integer("sort").notNull().default(0),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [
    secondOperatorCheck("promotions_four_eyes", t),
    check(
      "promotions_valid",
      sql`${t.percent_bp} > 0 AND ${t.percent_bp} <= 10000 AND ${t.cap_micro} > 0 AND ${t.min_deposit_micro} > 0 AND ${t.ends_at_ms} > ${t.starts_at_ms}`,
    ),
  ],
);

/**
 * A user's appointment for a promotion and what came of it, one row per user and promotion:
 * booked → granted (paid), or booked → pending (a large bonus waiting for a second operator)
 * → granted | declined, or booked → declined. The bonus is computed from the deposit, never
 * typed; the CHECKs hold the four-eyes rule like deposits do.
 */
export const promotion_bookings = sqliteTable(
  "promotion_bookings",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    promotion_id: integer("promotion_id").notNull(),
    user_id: integer("user_id").notNull(),
    status: text("status", { enum: ["booked", "pending", "granted", "declined"] }).notNull(),
    booked_at_ms: integer("booked_at_ms").notNull(),
    /** The deposit the bonus is for, and the bonus it gives under the promotion's terms. */
    deposit_id: integer("deposit_id"),
    bonus_micro: integer("bonus_micro"),
    /** The operator who granted, and the different one who confirmed a large bonus. */
    granted_by: integer("granted_by"),
    confirmed_by: integer("confirmed_by"),
    /** The threshold in force at the grant: at or above it, two operators are needed. */
    four_eyes_micro: integer("four_eyes_micro"),
    declined_by: integer("declined_by"),
    decline_reason: text("decline_reason").notNull().default(""),
    decided_at_ms: integer("decided_at_ms"),
  },
  (t) => [
    // Booking is idempotent and a bonus is paid once per user and promotion.
    uniqueIndex("promotion_bookings_once").on(t.promotion_id, t.user_id),
    // One deposit backs one bonus, across all promotions (a declined grant frees it).
    uniqueIndex("promotion_bookings_deposit_once").on(t.deposit_id).where(sql`${t.status} IN ('pending', 'granted')`),
    index("promotion_bookings_user_idx").on(t.user_id),
    index("promotion_bookings_status_idx").on(t.status, t.id),
    check("promotion_bookings_bonus_positive", sql`${t.bonus_micro} IS NULL OR ${t.bonus_micro} > 0`),
    check("promotion_bookings_four_eyes", sql`${t.confirmed_by} IS NULL OR ${t.confirmed_by} <> ${t.granted_by}`),
    check(
      "promotion_bookings_large_needs_two",
      sql`${t.status} <> 'granted' OR (${t.deposit_id} IS NOT NULL AND ${t.bonus_micro} IS NOT NULL AND ${t.four_eyes_micro} IS NOT NULL AND ${t.granted_by} IS NOT NULL AND (${t.bonus_micro} < ${t.four_eyes_micro} OR (${t.confirmed_by} IS NOT NULL AND ${t.confirmed_by} <> ${t.granted_by})))`,
    ),
  ],
);
