import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Single-use sign-in challenges for wallet login (worker/domain/identity/wallet-login.ts). A
 * nonce is consumed by setting `used_at_ms` in one conditional statement, so of any number of
 * concurrent replays of one signed message exactly one signs in. Expired rows are deleted as
 * new nonces are issued.
 */
export const wallet_nonces = sqliteTable(
  "wallet_nonces",
  {
    nonce: text("nonce").primaryKey(),
    created_at_ms: integer("created_at_ms").notNull(),
    expires_at_ms: integer("expires_at_ms").notNull(),
    used_at_ms: integer("used_at_ms"),
  },
  (t) => [index("wallet_nonces_expires_idx").on(t.expires_at_ms)],
);
