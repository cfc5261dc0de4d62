import { inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { app_config } from "../../db/schema";
import { auditInsert } from "../audit/log";

/** The platform's bank account for bank-transfer recharges (`/api/index/getBA`). */
export type BankAccount = { enabled: boolean; bank: string; holder: string; account: string; branch: string; min_amount_micro: number };

const KEYS = ["bank.enabled", "bank.bank", "bank.holder", "bank.account", "bank.branch", "bank.min_amount_micro"] as const;

export async function getBankAccount(db: Db): Promise<BankAccount> {
  const rows = await db.select().from(app_config).where(inArray(app_config.key, [...KEYS]));
  const v = (k: (typeof KEYS)[number]) => rows.find((r) => r.key === k)?.value ?? "";
  return {
    enabled: v("bank.enabled") === "1" && v("bank.account") !== "",
    bank: v("bank.bank"),
    holder: v("bank.holder"),
    account: v("bank.account"),
    branch: v("bank.branch"),
    min_amount_micro: Number(v("bank.min_amount_micro")) || 10_000_000,
  };
}

function upserts(db: Db, bank: BankAccount, now_ms: number) {
  const values: Record<(typeof KEYS)[number], string> = {
    "bank.enabled": bank.enabled ? "1" : "0",
    "bank.bank": bank.bank,
    "bank.holder": bank.holder,
    "bank.account": bank.account,
    "bank.branch": bank.branch,
    "bank.min_amount_micro": String(bank.min_amount_micro),
  };
  return KEYS.map((key) =>
    db.insert(app_config).values({ key, value: values[key], updated_at_ms: now_ms }).onConflictDoUpdate({ target: app_config.key, set: { value: values[key], updated_at_ms: now_ms } }),
  );
}

/** Operator change (operator_id) or demo seed (null): the new values, audited when by an operator. */
export async function setBankAccount(db: Db, operator_id: number | null, bank: BankAccount, reason: string, now_ms: number) {
  const before = await getBankAccount(db);
  const [first, ...rest] = upserts(db, bank, now_ms);
  if (operator_id === null) await db.batch([first, ...rest]);
  else await db.batch([first, ...rest, auditInsert(db, { operator_id, action: "config.bank", target: "bank_account", reason, data: { before, after: bank } }, now_ms)]);
}
