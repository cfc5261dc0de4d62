/**
 * `npm run user:erase -- --user N --operator <account> --reason "..." [--dry-run] [--allow-open] [--persist-to DIR]`
 * erases a user's personal data and files from the local state (worker/domain/retention/erase.ts
 * says what goes and what stays; decision 133). Run it with --dry-run first: it prints what it
 * would remove and changes nothing. It refuses a user with money or anything open (orders,
 * withdrawals, deposits, adjustments, bookings) unless --allow-open: the books stay whole either
 * way, but such a user could no longer be paid or reached. The erasure is audit-logged as
 * `user.erase` under the operator named (an enabled console operator).
 */
import { parseArgs } from "node:util";
import { getPlatformProxy } from "wrangler";
import { eq } from "drizzle-orm";
import { getDb } from "../worker/db/client";
import { operators } from "../worker/db/schema";
import { formatAmount } from "../worker/domain/money/units";
import { eraseUser, planErasure, type ErasurePlan } from "../worker/domain/retention/erase";
import type { Env } from "../worker/env";
import { PLATFORM_CONFIG } from "./lib";

const USAGE = 'usage: npm run user:erase -- --user N --operator <account> --reason "..." [--dry-run] [--allow-open] [--persist-to DIR]';
const { values } = parseArgs({
  options: { user: { type: "string" }, operator: { type: "string" }, reason: { type: "string" }, "dry-run": { type: "boolean", default: false }, "allow-open": { type: "boolean", default: false }, "persist-to": { type: "string", default: ".wrangler/state" } },
});
const user_id = Number(values.user);
if (!Number.isSafeInteger(user_id) || user_id <= 0 || (!values["dry-run"] && (!values.operator || !values.reason?.trim()))) {
  console.error(USAGE);
  process.exit(2);
}

function show(plan: ErasurePlan) {
  console.log(`user ${plan.user_id} (${plan.account}): balance ${formatAmount(plan.balance_micro, 6)} USDT${Object.keys(plan.open).length ? `, open: ${Object.entries(plan.open).map(([k, v]) => `${v} ${k}`).join(", ")}` : ", nothing open"}`);
  for (const [table, n] of Object.entries(plan.rows)) if (n > 0) console.log(`  ${table.padEnd(26)} ${n} row${n === 1 ? "" : "s"}${table === "users" ? " (account name and password replaced)" : table === "withdrawals" ? " (sealed payout details cleared)" : ""}`);
  console.log(`  files                      ${plan.files.length}`);
}

const { env, dispose } = await getPlatformProxy<Env>({ configPath: PLATFORM_CONFIG, persist: { path: `${values["persist-to"]}/v3` } });
try {
  const db = getDb(env.DB);
  if (values["dry-run"]) {
    const plan = await planErasure(db, user_id);
    if (!plan) throw new Error(`no user ${user_id}`);
    console.log("dry run: nothing is changed");
    show(plan);
    if (plan.balance_micro !== 0 || Object.keys(plan.open).length) console.log("an erasure would be refused: the user has money or open items (--allow-open overrides)");
  } else {
    const operator = await db.query.operators.findFirst({ where: eq(operators.account, values.operator!) });
    if (!operator || !operator.enabled) throw new Error(`no enabled operator ${values.operator}`);
    const r = await eraseUser(db, env.UPLOADS, user_id, { operator_id: operator.id, reason: values.reason!.trim(), allow_open: values["allow-open"] }, Date.now());
    if (r.status === "user_unknown") throw new Error(`no user ${user_id}`);
    show(r.plan);
    if (r.status !== "ok") {
      console.error(`refused (${r.status}): the user has money or open items; settle them first, or pass --allow-open (docs/ops/retention.md)`);
      process.exitCode = 1;
    } else {
      console.log(`erased: ${Object.values(r.plan.rows).reduce((s, n) => s + n, 0)} rows, ${r.files_deleted} of ${r.plan.files.length} files deleted; audit entry user.erase by ${operator.account}`);
    }
  }
} catch (err) {
  console.error(String((err as Error).message ?? err));
  process.exitCode = 1;
} finally {
  await dispose();
}
