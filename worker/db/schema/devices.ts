import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Every sign-in attempt on an existing account (password, wallet, passkey), and every password
 * recovery by a mailed code (`recovery`, decision 138), failed or not, so
 * the owner can see who tried. Only the last 50 per user are kept: each insert prunes older
 * rows in the same batch.
 */
export const login_attempts = sqliteTable(
  "login_attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    user_id: integer("user_id").notNull(),
    at_ms: integer("at_ms").notNull(),
    ok: integer("ok").notNull(),
    method: text("method", { enum: ["password", "wallet", "passkey", "recovery"] }).notNull(),
    device: text("device").notNull(),
    ip: text("ip").notNull(),
  },
  (t) => [
    index("login_attempts_user_idx").on(t.user_id, t.id),
    check("login_attempts_method_check", sql`${t.method} in ('password','wallet','passkey','recovery')`),
  ],
);

/**
 * The device labels and networks a user has signed in from. A successful sign-in from a pair
 * not listed here notifies the user (new_sign_in); an account's first session lists its pair
 * without a notice.
 */
export const known_devices = sqliteTable(
  "known_devices",
  {
    user_id: integer("user_id").notNull(),
    device: text("device").notNull(),
    ip: text("ip").notNull(),
    first_seen_at_ms: integer("first_seen_at_ms").notNull(),
  },
  (t) => [primaryKey({ columns: [t.user_id, t.device, t.ip] })],
);

/**
 * WebAuthn credentials (passkeys). `id` is the credential id (base64url) the authenticator
 * answers with; `counter` is the signature counter, which must grow when the authenticator
 * keeps one (a copied key would repeat a value).
 */
export const passkeys = sqliteTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    user_id: integer("user_id").notNull(),
    name: text("name").notNull(),
    public_key: text("public_key").notNull(),
    counter: integer("counter").notNull().default(0),
    transports: text("transports").notNull().default(""),
    created_at_ms: integer("created_at_ms").notNull(),
    last_used_at_ms: integer("last_used_at_ms"),
  },
  (t) => [index("passkeys_user_idx").on(t.user_id)],
);

/**
 * WebAuthn challenges, single use: spent by one conditional update (`used_at_ms`), so of
 * concurrent replays exactly one goes on. A registration challenge belongs to the user who
 * asked; a sign-in challenge to nobody yet. Expired rows are deleted as new ones are issued.
 */
export const webauthn_challenges = sqliteTable(
  "webauthn_challenges",
  {
    challenge: text("challenge").primaryKey(),
    purpose: text("purpose", { enum: ["register", "login"] }).notNull(),
    user_id: integer("user_id"),
    created_at_ms: integer("created_at_ms").notNull(),
    expires_at_ms: integer("expires_at_ms").notNull(),
    used_at_ms: integer("used_at_ms"),
  },
  (t) => [
    index("webauthn_challenges_expires_idx").on(t.expires_at_ms),
    check("webauthn_challenges_purpose_check", sql`${t.purpose} in ('register','login')`),
  ],
);
