import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** End users. `account` is stored lower-cased so "Alice" and "alice" are one account. */
export const users = sqliteTable(
  "users",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    account: text("account").notNull(),
    password_hash: text("password_hash").notNull(),
    /** The user's own invitation code (row in invite_codes). */
    invite_code: text("invite_code").notNull(),
    /** Who invited this user; null when the code was a platform code such as WELCOME. */
    inviter_id: integer("inviter_id"),
    /** The code used at registration, kept even when it was a platform code. */
    invited_with_code: text("invited_with_code").notNull(),
    /** Stored language choice (locale key such as "th" or "zh-Hans"). */
    lang: text("lang"),
    created_at_ms: integer("created_at_ms").notNull(),
    password_changed_at_ms: integer("password_changed_at_ms").notNull(),
    /** Withdrawals pause until this time after a password change (0: not paused). */
    withdraw_paused_until_ms: integer("withdraw_paused_until_ms").notNull().default(0),
  },
  (t) => [
    uniqueIndex("users_account_unique").on(t.account),
    uniqueIndex("users_invite_code_unique").on(t.invite_code),
    index("users_inviter_idx").on(t.inviter_id),
  ],
);

/** Invitation codes: platform codes (owner null, e.g. WELCOME) and one per user. */
export const invite_codes = sqliteTable("invite_codes", {
  code: text("code").primaryKey(),
  owner_user_id: integer("owner_user_id"),
  enabled: integer("enabled").notNull().default(1),
  created_at_ms: integer("created_at_ms").notNull(),
});

/**
 * Sessions for users and operators. Only the SHA-256 of the 256-bit token is stored, so a
 * leaked table cannot be replayed. A session dies at the earlier of idle and absolute expiry.
 */
export const sessions = sqliteTable(
  "sessions",
  {
    token_hash: text("token_hash").primaryKey(),
    kind: text("kind", { enum: ["user", "operator"] }).notNull(),
    subject_id: integer("subject_id").notNull(),
    created_at_ms: integer("created_at_ms").notNull(),
    last_seen_at_ms: integer("last_seen_at_ms").notNull(),
    idle_timeout_ms: integer("idle_timeout_ms").notNull(),
    absolute_expires_at_ms: integer("absolute_expires_at_ms").notNull(),
    revoked_at_ms: integer("revoked_at_ms"),
    /** The id the session list shows and revokes by: random, never the token hash. */
    public_id: text("public_id"),
    /** Browser and system from the user agent ("Chrome on Android"), and the client's /24 (IPv6 /48). */
    device: text("device").notNull().default(""),
    ip: text("ip").notNull().default(""),
    /**
     * Operator sessions only: when the operator last proved their second factor in this session
     * (at sign-in, at enrolment, at each step-up; the step-up clock, worker/clock.ts). Null: never,
     * so the session may only enrol (decision 117). Money routes need it recent (decision 118).
     */
    step_up_at_ms: integer("step_up_at_ms"),
  },
  (t) => [
    index("sessions_subject_idx").on(t.kind, t.subject_id),
    uniqueIndex("sessions_public_id_unique").on(t.public_id),
    check("sessions_kind_check", sql`${t.kind} in ('user','operator')`),
  ],
);

/**
 * Failed-login counters per account key (kept for unknown accounts too, so throttling does
 * not reveal which accounts exist).
 */
export const login_throttle = sqliteTable("login_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull(),
  window_started_at_ms: integer("window_started_at_ms").notNull(),
  locked_until_ms: integer("locked_until_ms").notNull().default(0),
});
