import { inArray } from "drizzle-orm";
import type { Db } from "../../db/client";
import { app_config } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { openState } from "../audit/second-operator";
import { BANK_MIN_DEFAULT_MICRO } from "../money/settings";

/** The platform's bank account for bank-transfer recharges (`/api/index/getBA`). */
export type BankAccount = { enabled: boolean; bank: string; holder: string; account: string; branch: string; min_amount_micro: number };

const KEYS = ["bank.enabled", "bank.bank", "bank.holder", "bank.account", "bank.branch", "bank.min_amount_micro", "bank.terms_by", "bank.opened_by"] as const;

/** Who set the account details and who opened them (worker/domain/audit/second-operator.ts). */
type Guard = { terms_by: number | null; opened_by: number | null };

export async function getBankAccount(db: Db): Promise<BankAccount> {
  return (await readBank(db)).bank;
}

async function readBank(db: Db): Promise<{ bank: BankAccount; guard: Guard }> {
  const rows = await db.select().from(app_config).where(inArray(app_config.key, [...KEYS]));
  const v = (k: (typeof KEYS)[number]) => rows.find((r) => r.key === k)?.value ?? "";
  const id = (k: "bank.terms_by" | "bank.opened_by") => (v(k) === "" ? null : Number(v(k)));
  const guard = { terms_by: id("bank.terms_by"), opened_by: id("bank.opened_by") };
  // Open only when nobody set the details, or someone other than who set them opened it.
  const twoPeople = guard.terms_by === null || (guard.opened_by !== null && guard.opened_by !== guard.terms_by);
  const bank = {
    enabled: v("bank.enabled") === "1" && v("bank.account") !== "" && twoPeople,
    bank: v("bank.bank"),
    holder: v("bank.holder"),
    account: v("bank.account"),
    branch: v("bank.branch"),
    min_amount_micro: Number(v("bank.min_amount_micro")) || BANK_MIN_DEFAULT_MICRO,
  };
  return { bank, guard };
}

function upserts(db: Db, bank: BankAccount, guard: Guard, now_ms: number) {
  const values: Record<(typeof KEYS)[number], string> = {
    "bank.terms_by": guard.terms_by === null ? "" : String(guard.terms_by),
    "bank.opened_by": guard.opened_by === null ? "" : String(guard.opened_by),
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

/**
 * Operator change (operator_id) or demo seed (null): the new values, audited when by an
 * operator. New account details close bank recharges until a different operator opens them,
 * as for a channel's xpub: one person alone cannot send users' transfers to their own account.
 */
export async function setBankAccount(db: Db, operator_id: number | null, bank: BankAccount, reason: string, now_ms: number): Promise<{ status: "ok"; enabled: boolean } | { status: "four_eyes_same_operator" }> {
  const { bank: before, guard } = await readBank(db);
  const changed = before.bank !== bank.bank || before.holder !== bank.holder || before.account !== bank.account || before.branch !== bank.branch;
  const state = openState(operator_id, { enabled: before.enabled ? 1 : 0, ...guard }, bank.enabled, changed);
  if (!state) return { status: "four_eyes_same_operator" };
  const after = { ...bank, enabled: state.enabled === 1 };
  const [first, ...rest] = upserts(db, after, { terms_by: state.terms_by, opened_by: state.opened_by }, now_ms);
  if (operator_id === null) await db.batch([first, ...rest]);
  else await db.batch([first, ...rest, auditInsert(db, { operator_id, action: "config.bank", target: "bank_account", reason, data: { before, after } }, now_ms)]);
  return { status: "ok", enabled: after.enabled };
}
