/**
 * `npm run operator:create -- <account> <password> [--persist-to DIR]` creates a console
 * operator in the local D1, through the domain code.
 * `--print-sql` instead prints the INSERT (with the argon2id hash) for a deployed database:
 *   npx wrangler d1 execute DB --remote --command "$(npm run -s operator:create -- ops1 'pw…' --print-sql)"
 */
import { getPlatformProxy } from "wrangler";
import { getDb } from "../worker/db/client";
import { createOperator } from "../worker/domain/identity/operators";
import { hashPassword } from "../worker/domain/identity/password";
import { isValidAccount, isValidPassword, normalizeAccount } from "../worker/domain/identity/rules";
import type { Env } from "../worker/env";
import { PLATFORM_CONFIG } from "./lib";

const args = process.argv.slice(2);
const i = args.indexOf("--persist-to");
const persistTo = i >= 0 ? args.splice(i, 2)[1] : ".wrangler/state";
const printSql = args.includes("--print-sql");
const [account, password] = args.filter((a) => !a.startsWith("--"));
if (!account || !password) {
  console.error("usage: npm run operator:create -- <account> <password> [--persist-to DIR] [--print-sql]");
  process.exit(2);
}

if (printSql) {
  if (!isValidAccount(normalizeAccount(account)) || !isValidPassword(password)) {
    console.error("operator not created: account or password does not meet the rules");
    process.exit(1);
  }
  const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
  console.log(
    `INSERT INTO operators (account, password_hash, enabled, created_at_ms) VALUES (${q(normalizeAccount(account))}, ${q(hashPassword(password))}, 1, ${Date.now()});`,
  );
} else {
  const { env, dispose } = await getPlatformProxy<Env>({ configPath: PLATFORM_CONFIG, persist: { path: `${persistTo}/v3` } });
  try {
    const r = await createOperator(getDb(env.DB), { account, password }, Date.now());
    if (r.status !== "ok") {
      console.error(`operator not created: ${r.status.replace(/_/g, " ")}`);
      process.exitCode = 1;
    } else console.log(`operator ${r.operator.account} created (id ${r.operator.id})`);
  } finally {
    await dispose();
  }
}
