import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Operator (console) accounts: a separate table, never a flag on users. */
export const operators = sqliteTable(
  "operators",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    account: text("account").notNull(),
    password_hash: text("password_hash").notNull(),
    enabled: integer("enabled").notNull().default(1),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [uniqueIndex("operators_account_unique").on(t.account)],
);

/**
 * An operator's authenticator key (TOTP, the users' rules: decision 068), one per operator.
 * `enabled_at_ms` null: pending, set up but not yet proven with a code. `last_step` is the newest
 * time step accepted, so each code works once. The key is sealed with the card key at rest.
 * Operators have no recovery codes: a lost phone is reset with `npm run operator:create`.
 */
export const operator_two_factor = sqliteTable("operator_two_factor", {
  operator_id: integer("operator_id").primaryKey(),
  secret: text("secret").notNull(),
  enabled_at_ms: integer("enabled_at_ms"),
  last_step: integer("last_step").notNull().default(0),
  created_at_ms: integer("created_at_ms").notNull(),
});

/**
 * Append-only record of every operator action. Triggers in the migration reject UPDATE and
 * DELETE, so not even a buggy code path can rewrite history.
 */
export const audit_log = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    operator_id: integer("operator_id").notNull(),
    action: text("action").notNull(),
    target: text("target").notNull().default(""),
    reason: text("reason").notNull().default(""),
    data_json: text("data_json").notNull().default("{}"),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  (t) => [index("audit_log_created_idx").on(t.created_at_ms), index("audit_log_operator_idx").on(t.operator_id)],
);

