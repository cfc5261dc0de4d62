import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { ledger_accounts } from "../../db/schema";

/** Every user has these four accounts, created with the user (docs/architecture.md, Money). */
export const USER_ACCOUNT_CODES = ["available", "locked_trade", "locked_pool", "locked_withdrawal"] as const;
export type UserAccountCode = (typeof USER_ACCOUNT_CODES)[number];

/** The platform's accounts, created by migrations 0003, 0005, 0010 and 0011. */
export const PLATFORM_ACCOUNT_CODES = ["deposits", "withdrawals", "fees", "trading", "rewards", "promotions", "adjustments", "demo", "miner"] as const;
export type PlatformAccountCode = (typeof PLATFORM_ACCOUNT_CODES)[number];

export type AccountKey = `user:${number}:${UserAccountCode}` | `platform:${PlatformAccountCode}`;

export const userAccount = (user_id: number, code: UserAccountCode): AccountKey => `user:${user_id}:${code}`;
export const platformAccount = (code: PlatformAccountCode): AccountKey => `platform:${code}`;

/**
 * Inserts of a new user's accounts. `user_id` may be a SQL subquery, so registration can
 * create the user and the accounts in one batch before the id is known.
 */
export function userAccountInserts(db: Db, user_id: number | SQL, now_ms: number) {
  return USER_ACCOUNT_CODES.map((code) =>
    db.insert(ledger_accounts).values({
      account_key: sql`'user:' || ${user_id} || ':' || ${code}`,
      owner_kind: "user",
      user_id: user_id as number,
      code,
      created_at_ms: now_ms,
    }),
  );
}
