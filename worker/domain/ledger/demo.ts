import type { Db } from "../../db/client";
import { DEMO_ACCOUNT_CODES, platformAccount, userAccount, userAccountInserts } from "./accounts";
import { postTransfers, type PostResult } from "./transfer";

/**
 * In a demo deployment (`APP_ENV=demo`, worker/mode.ts) deposits are closed, so each new account
 * starts with demo money to try trading with. It lives in the user's own `demo` account (made
 * here, in the same batch), never in `available`: it cannot be withdrawn, is never counted as
 * owed, and a database holding it never runs with real money (worker/money-mode.ts). Still a
 * ledger transfer (from the platform's `demo` account), keyed by the user, so it happens once.
 */
export const DEMO_GRANT_MICRO = 10_000_000_000; // 10,000 demo USDT

export async function grantDemoMoney(db: Db, user_id: number, now_ms: number): Promise<PostResult> {
  const accounts = userAccountInserts(db, user_id, now_ms, DEMO_ACCOUNT_CODES).map((insert) => insert.onConflictDoNothing());
  const r = await postTransfers(
    db,
    [{ key: `demo_grant:${user_id}`, debit: platformAccount("demo"), credit: userAccount(user_id, "demo"), amount_micro: DEMO_GRANT_MICRO, code: "demo_grant", ref_type: "user", ref_id: String(user_id) }],
    accounts,
    now_ms,
  );
  // A second grant for the same user is refused by its key: already granted is fine.
  return r.status === "duplicate" ? { status: "ok" } : r;
}
