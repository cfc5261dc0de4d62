import { eq } from "drizzle-orm";
import { getDb } from "../../../worker/db/client";
import { ledger_accounts, profiles } from "../../../worker/db/schema";
import { withInvocationDb } from "../../../worker/db/limits";
import { accrueDue } from "../../../worker/domain/earn/accrual";
import { platformAccount, userAccount, type UserAccountCode } from "../../../worker/domain/ledger/accounts";
import { postTransfers } from "../../../worker/domain/ledger/transfer";
import { serverNow } from "../../../worker/clock";
import { call, db, newUser, testEnv } from "../helpers";

export const USDT = 1_000_000;
export const DAY = 86_400_000;

let n = 0;
export const rkey = (p = "earn") => `${p}-${Date.now().toString(36)}-${++n}`;

/** A new user with `usdt` available, credited through the ledger like an operator adjustment. */
export async function fundedUser(usdt: number) {
  const u = await newUser();
  const r = await postTransfers(db, [{ key: `test:fund:${u.id}`, debit: platformAccount("adjustments"), credit: userAccount(u.id, "available"), amount_micro: usdt * USDT, code: "adjustment_credit", ref_type: "test", ref_id: String(u.id) }], [], Date.now());
  if (r.status !== "ok") throw new Error(`fund: ${r.status}`);
  return u;
}

export async function withProfile(user_id: number, status: "submitted" | "verified" | "rejected") {
  await db
    .insert(profiles)
    .values({ user_id, name: "Test User", phone: "+4915112345678", email: "t@example.com", id_photo_id: "x", signature_id: "y", status, submitted_at_ms: Date.now() })
    .onConflictDoUpdate({ target: profiles.user_id, set: { status } });
}

export async function account(user_id: number, code: UserAccountCode): Promise<number> {
  const row = await db.query.ledger_accounts.findFirst({ where: eq(ledger_accounts.account_key, userAccount(user_id, code)) });
  return row!.balance_micro;
}

export async function advance(ms: number) {
  const r = await call("/api/test/clock", { advance_ms: ms });
  if (r.code !== 1) throw new Error("clock");
}

/** One accrual run as the cron makes it: its own invocation, under D1's per-invocation limits. */
export async function accrue() {
  const limited = getDb(withInvocationDb(testEnv).DB);
  return accrueDue(limited, await serverNow(testEnv, limited));
}

export async function buyPool(token: string, amount: string, key = rkey(), product_id?: number) {
  const pid = product_id ?? (await call("/api/index/product", { type: "pool" })).data[0].id;
  return call("/api/index/buy", { product_id: pid, amount }, { token, headers: { "idempotency-key": key } });
}
