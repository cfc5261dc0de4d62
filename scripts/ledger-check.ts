/**
 * `npm run ledger:check [-- --persist-to DIR]`: recomputes every balance of the local D1
 * from its transfers and reports drift, negative user balances and the debit/credit totals.
 * Exits 1 when the books do not balance.
 */
import { getPlatformProxy } from "wrangler";
import { getDb } from "../worker/db/client";
import { formatAmount } from "../worker/domain/money/units";
import { checkLedger } from "../worker/domain/ledger/check";
import type { Env } from "../worker/env";
import { PLATFORM_CONFIG } from "./lib";

const i = process.argv.indexOf("--persist-to");
const persistTo = i > 0 ? process.argv[i + 1] : ".wrangler/state";
const { env, dispose } = await getPlatformProxy<Env>({ configPath: PLATFORM_CONFIG, persist: { path: `${persistTo}/v3` } });
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
  console.log(r.ok ? "ledger OK" : "LEDGER MISMATCH");
  process.exitCode = r.ok ? 0 : 1;
} finally {
  await dispose();
}
