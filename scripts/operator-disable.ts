/**
 * `npm run operator:disable -- --account X --reason "..." [--persist-to DIR] [--print-sql]`:
 * offboarding (decision 137). The operator can no longer sign in, every session of theirs ends,
 * and the audit log records it (`operator.disable`, operator_id 0: the command line), all in one
 * D1 batch (worker/domain/identity/people.ts). Operator sessions are read from D1 on every
 * request, so they are refused at once; no socket outlives them (operator pages hold none that
 * carry a session).
 * `--print-sql` prints the same three statements for a deployed database:
 *   npx wrangler d1 execute DB --remote --command "$(npm run -s operator:disable -- --account ops1 --reason 'left' --print-sql)"
 */
import { parseArgs } from "node:util";
import { getPlatformProxy } from "wrangler";
import { getDb } from "../worker/db/client";
import { disableOperator } from "../worker/domain/identity/people";
import { normalizeAccount } from "../worker/domain/identity/rules";
import type { Env } from "../worker/env";
import { PLATFORM_CONFIG } from "./lib";

const USAGE = 'usage: npm run operator:disable -- --account <account> --reason "<why>" [--persist-to DIR] [--print-sql]';
const { values } = parseArgs({
  options: { account: { type: "string" }, reason: { type: "string" }, "persist-to": { type: "string", default: ".wrangler/state" }, "print-sql": { type: "boolean", default: false } },
  strict: true,
});
if (!values.account || !values.reason?.trim()) {
  console.error(USAGE);
  process.exit(2);
}
const account = normalizeAccount(values.account);
const reason = values.reason.trim();
const via = "npm run operator:disable";

if (values["print-sql"]) {
  const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const now_ms = Date.now();
  const who = `(SELECT id FROM operators WHERE account = ${q(account)})`;
  console.log(
    `UPDATE operators SET enabled = 0 WHERE account = ${q(account)}; ` +
      `UPDATE sessions SET revoked_at_ms = ${now_ms} WHERE kind = 'operator' AND revoked_at_ms IS NULL AND subject_id = ${who}; ` +
      `INSERT INTO audit_log (operator_id, action, target, reason, data_json, created_at_ms) VALUES (0, 'operator.disable', ${q(`operator:${account}`)}, ${q(reason)}, ${q(JSON.stringify({ via: `${via} --print-sql` }))}, ${now_ms});`,
  );
} else {
  const { env, dispose } = await getPlatformProxy<Env>({ configPath: PLATFORM_CONFIG, persist: { path: `${values["persist-to"]}/v3` } });
  try {
    const r = await disableOperator(getDb(env.DB), { account, reason, by_operator_id: 0, via }, Date.now());
    if (r.status === "ok") console.log(`operator ${account} disabled: cannot sign in; ${r.sessions_ended} session(s) ended; audited (operator.disable).`);
    else {
      console.error(`operator ${account} not disabled: ${r.status === "not_found" ? "no such operator" : r.status === "already_disabled" ? "already disabled" : "a reason is required"}`);
      process.exitCode = 1;
    }
  } finally {
    await dispose();
  }
}
