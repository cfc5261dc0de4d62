import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { ledger_accounts } from "../../db/schema";

/** Every user has these four accounts, created with the user (docs/architecture.md, Money). */
export const USER_ACCOUNT_CODES = ["available", "locked_trade", "locked_pool", "locked_withdrawal"] as const;
/**
 * A demo deployment's users also have these two (made with their demo grant): demo money lives
 * only here, so it can never be withdrawn, counted as owed, or mixed with real money.
 */
export const DEMO_ACCOUNT_CODES = ["demo", "demo_locked"] as const;
export type UserAccountCode = (typeof USER_ACCOUNT_CODES)[number] | (typeof DEMO_ACCOUNT_CODES)[number];

/** The platform's accounts, created by migrations 0003, 0005, 0010 and 0011. */
export const PLATFORM_ACCOUNT_CODES = ["deposits", "withdrawals", "fees", "trading", "rewards", "promotions", "adjustments", "demo", "miner"] as const;
export type PlatformAccountCode = (typeof PLATFORM_ACCOUNT_CODES)[number];

export type AccountKey = `user:${number}:${UserAccountCode}` | `platform:${PlatformAccountCode}`;

export const userAccount = (user_id: number, code: UserAccountCode): AccountKey => `user:${user_id}:${code}`;
export const platformAccount = (code: PlatformAccountCode): AccountKey => `platform:${code}`;

/** Whose money: real, or a demo deployment's (worker/mode.ts `walletOf` says which one a deployment moves). */
export type Wallet = "real" | "demo";

/**
 * The accounts an order moves money between, by whose money it is: a trade's stake goes from
 * `free` to `locked`, its fee to `fees`, a loss to `house` and a win's gain from it. Demo
 * orders never touch a real account, on either side.
 */
export function tradeAccounts(user_id: number, wallet: Wallet) {
  return wallet === "demo"
    ? { free: userAccount(user_id, "demo"), locked: userAccount(user_id, "demo_locked"), fees: platformAccount("demo"), house: platformAccount("demo") }
    : { free: userAccount(user_id, "available"), locked: userAccount(user_id, "locked_trade"), fees: platformAccount("fees"), house: platformAccount("trading") };
}

/**
 * Inserts of a new user's accounts. `user_id` may be a SQL subquery, so registration can
 * create the user and the accounts in one batch before the id is known.
 */
export function userAccountInserts(db: Db, user_id: number | SQL, now_ms: number, codes: readonly UserAccountCode[] = USER_ACCOUNT_CODES) {
  return codes.map((code) =>
    db.insert(ledger_accounts).values({
      // A number is spelt here: bound as a parameter, D1 would concatenate it as "2.0".
      account_key: typeof user_id === "number" ? userAccount(user_id, code) : sql`'user:' || ${user_id} || ':' || ${code}`,
      owner_kind: "user",
      user_id: user_id as number,
      code,
      created_at_ms: now_ms,
    }),
  );
}
