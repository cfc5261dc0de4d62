/**
 * `npm run ledger:check [-- --persist-to DIR]`: recomputes every balance of the local D1
 * from its transfers and reports drift, negative user balances and the debit/credit totals, and
 * compares every proof-of-liabilities snapshot's total with the ledger as of its last transfer.
 * Exits 1 when the books do not balance.
 */
import { getPlatformProxy } from "wrangler";
import { getDb } from "../worker/db/client";
import { formatAmount } from "../worker/domain/money/units";
import { checkLedger } from "../worker/domain/ledger/check";
import { checkSnapshots } from "../worker/domain/transparency/liabilities";
import type { Env } from "../worker/env";
import { DEFAULT_PERSIST_TO, runScript, scriptArgs } from "./args";
import { PLATFORM_CONFIG } from "./lib";

const USAGE = "usage: npm run ledger:check [-- --persist-to DIR]";

/** `--persist-to DIR` (or `=DIR`), nothing else. */
export function ledgerCheckArgs(argv: string[]): { persist_to: string } {
  const { values } = scriptArgs({ args: argv, options: { "persist-to": { type: "string", default: DEFAULT_PERSIST_TO } } }, USAGE);
  return { persist_to: values["persist-to"] };
}

await runScript(import.meta.url, async () => {
  const { persist_to } = ledgerCheckArgs(process.argv.slice(2));
  const { env, dispose } = await getPlatformProxy<Env>({ configPath: PLATFORM_CONFIG, persist: { path: `${persist_to}/v3` } });
  try {
    const r = await checkLedger(getDb(env.DB));
    console.log(`accounts:            ${r.accounts}`);
    console.log(`transfers:           ${r.transfers}`);
    console.log(`total debits:        ${formatAmount(r.debits_micro, 6)} USDT`);
    console.log(`total credits:       ${formatAmount(r.credits_micro, 6)} USDT`);
    console.log(`sum of balances:     ${formatAmount(r.balance_sum_micro, 6)} USDT (must be 0)`);
    console.log(`drifting accounts:   ${r.drift.length}`);
    for (const d of r.drift) console.log(`  ${d.account_key}: cached ${formatAmount(d.cached_balance_micro, 6)}, ledger ${formatAmount(d.ledger_balance_micro, 6)}`);
    console.log(`negative user accts: ${r.negative_user_accounts.length}`);
    // Proof of liabilities: each snapshot's signed total against the ledger as of its last transfer.
    const snapshots = await checkSnapshots(getDb(env.DB));
    const off = snapshots.filter((s) => s.total_micro !== s.ledger_micro);
    console.log(`liability snapshots:  ${snapshots.length}, off the ledger: ${off.length}`);
    for (const s of off) console.log(`  snapshot ${s.id}: total ${formatAmount(s.total_micro, 6)}, ledger ${formatAmount(s.ledger_micro, 6)}`);
    const ok = r.ok && off.length === 0;
    console.log(ok ? "ledger OK" : "LEDGER MISMATCH");
    process.exitCode = ok ? 0 : 1;
  } finally {
    await dispose();
  }
});
