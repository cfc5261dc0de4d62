import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * A user's authenticator (TOTP) key. One row per user: while `enabled_at_ms` is null it is a
 * pending key from setup, not yet in force; enabling needs one code from it. The key is never
 * answered once enabled. `secret` is the base32 key sealed with the deployment's card key
 * (AES-256-GCM, "v1.<iv>.<ciphertext>", see worker/domain/crypto/sealing.ts), so a copy of D1 alone does not
 * give it away. `last_step` is the last 30-second step a code was accepted for, so a code (and
 * any older one) is accepted once.
 */
export const two_factor = sqliteTable("two_factor", {
  user_id: integer("user_id").primaryKey(),
  secret: text("secret").notNull(),
  enabled_at_ms: integer("enabled_at_ms"),
  last_step: integer("last_step").notNull().default(0),
  created_at_ms: integer("created_at_ms").notNull(),
});

/** One-time recovery codes: only their SHA-256 is stored; `used_at_ms` set marks one spent. */
export const two_factor_recovery_codes = sqliteTable(
  "two_factor_recovery_codes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    user_id: integer("user_id").notNull(),
    code_hash: text("code_hash").notNull(),
    used_at_ms: integer("used_at_ms"),
    created_at_ms: integer("created_at_ms").notNull(),
  },
  // Also serves "this user's codes" (its first column), so no separate user index.
  (t) => [uniqueIndex("two_factor_recovery_user_code_unique").on(t.user_id, t.code_hash)],
);
