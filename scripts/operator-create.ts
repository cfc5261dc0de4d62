/**
 * `npm run operator:create -- <account> [--persist-to DIR] [--print-sql]` creates a console
 * operator in the local D1, through the domain code. The password is read from standard input
 * (typed without echo at a terminal, else the first line), never from the command line, where
 * shell history and the process list would keep it.
 * The creation is audited (`operator.create`, decision 137), in the same batch or SQL.
 * `--print-sql` instead prints the INSERTs (with the argon2id hash) for a deployed database:
 *   npx wrangler d1 execute DB --remote --command "$(npm run -s operator:create -- ops1 --print-sql)"
 * The new operator has no authenticator key: at first sign-in the console shows one (QR code and
 * text) and asks one code from it before anything else (decision 117), so the key is only ever
 * seen by its operator. `--reset-two-factor` (no password asked) removes an operator's key and
 * ends their sessions, for a lost phone: they enrol again at the next sign-in.
 */
import { createInterface } from "node:readline";
import { getPlatformProxy } from "wrangler";
import { getDb } from "../worker/db/client";
import { checkOperatorCredentials, createOperator, OPERATOR_PASSWORD_MIN } from "../worker/domain/identity/operators";
import { hashPassword } from "../worker/domain/identity/password";
import { resetOperatorTwoFactor } from "../worker/domain/identity/operator-two-factor";
import { normalizeAccount } from "../worker/domain/identity/rules";
import { operators } from "../worker/db/schema";
import { eq } from "drizzle-orm";
import type { Env } from "../worker/env";
import { DEFAULT_PERSIST_TO, runScript, scriptArgs, UsageError } from "./args";
import { PLATFORM_CONFIG } from "./lib";

const USAGE =
  "usage: npm run operator:create -- <account> [--persist-to DIR] [--print-sql]   (the password comes from standard input)\n" +
  "       npm run operator:create -- <account> --reset-two-factor [--persist-to DIR] [--print-sql]";

const ENROLMENT = "At first sign-in (/admin/login) the console shows the operator an authenticator key as a QR code and text, and asks one code from it before anything else.";

const PROBLEMS: Record<string, string> = {
  account_invalid: "the account needs 4-20 letters, digits or underscores, starting with a letter",
  password_invalid: "the password needs a letter and a digit, at most 64 characters",
  password_too_short: `an operator password needs at least ${OPERATOR_PASSWORD_MIN} characters`,
  account_taken: "this account already exists",
};

/** The first line of a piped standard input, or "" if it is empty. */
function firstLine(): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, terminal: false });
    let line: string | null = null;
    rl.once("line", (l) => {
      line = l;
      rl.close();
    });
    rl.once("close", () => resolve(line ?? ""));
  });
}

/** Reads a password typed at the terminal without echoing it (the prompt goes to stderr, so `$(...)` captures only the SQL). */
function typedPassword(prompt: string): Promise<string> {
  return new Promise((resolve) => {
    const stdin = process.stdin;
    process.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding("utf8");
    let typed = "";
    const done = (value: string | null) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
      if (value === null) process.exit(130);
      resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") return done(typed);
        if (ch === "\u0003" || ch === "\u0004") return done(null); // Ctrl-C, Ctrl-D
        if (ch === "\u007f" || ch === "\b") typed = [...typed].slice(0, -1).join("");
        else if (ch >= " ") typed += ch;
      }
    };
    stdin.on("data", onData);
  });
}

async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) return firstLine();
  const password = await typedPassword("Password: ");
  if ((await typedPassword("Password again: ")) !== password) {
    console.error("operator not created: the two passwords differ");
    process.exit(1);
  }
  return password;
}

export type OperatorCreateArgs = { account: string; persist_to: string; print_sql: boolean; reset_two_factor: boolean };

/** `<account> [--persist-to DIR] [--print-sql] [--reset-two-factor]`: one account, never a password. */
export function operatorCreateArgs(argv: string[]): OperatorCreateArgs {
  const { values, positionals } = scriptArgs(
    {
      args: argv,
      allowPositionals: true,
      options: { "persist-to": { type: "string", default: DEFAULT_PERSIST_TO }, "print-sql": { type: "boolean", default: false }, "reset-two-factor": { type: "boolean", default: false } },
    },
    USAGE,
  );
  if (positionals.length !== 1) throw new UsageError(positionals.length > 1 ? `${USAGE}\nThe password is not taken from the command line: pipe it or type it at the prompt.` : USAGE);
  return { account: positionals[0], persist_to: values["persist-to"], print_sql: values["print-sql"], reset_two_factor: values["reset-two-factor"] };
}

await runScript(import.meta.url, async () => {
  const args = operatorCreateArgs(process.argv.slice(2));
  if (args.reset_two_factor) {
    await resetTwoFactor(args);
    process.exit(process.exitCode ?? 0);
  }
  const password = await readPassword();
  if (!password) {
    console.error("operator not created: no password on standard input");
    process.exit(1);
  }

  const checked = checkOperatorCredentials(args.account, password);
  if (checked.status !== "ok") {
    console.error(`operator not created: ${PROBLEMS[checked.status]}`);
    process.exit(1);
  }

  if (args.print_sql) {
    const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
    const now_ms = Date.now();
    // With its audit row (decision 137), as createOperator writes it: operator_id 0 is the command line.
    console.log(
      `INSERT INTO operators (account, password_hash, enabled, created_at_ms) VALUES (${q(checked.account)}, ${q(hashPassword(password))}, 1, ${now_ms}); ` +
        `INSERT INTO audit_log (operator_id, action, target, reason, data_json, created_at_ms) VALUES (0, 'operator.create', ${q(`operator:${checked.account}`)}, '', ${q(JSON.stringify({ via: "npm run operator:create --print-sql" }))}, ${now_ms});`,
    );
    console.error(ENROLMENT);
    return;
  }
  const { env, dispose } = await getPlatformProxy<Env>({ configPath: PLATFORM_CONFIG, persist: { path: `${args.persist_to}/v3` } });
  try {
    const r = await createOperator(getDb(env.DB), { account: args.account, password, audit: { operator_id: 0, via: "npm run operator:create" } }, Date.now());
    if (r.status !== "ok") {
      console.error(`operator not created: ${PROBLEMS[r.status]}`);
      process.exitCode = 1;
    } else console.log(`operator ${r.operator.account} created (id ${r.operator.id}). ${ENROLMENT}`);
  } finally {
    await dispose();
  }
});

/** Removes the operator's authenticator key and ends their sessions (a lost phone). */
async function resetTwoFactor(args: OperatorCreateArgs) {
  const account = normalizeAccount(args.account);
  if (args.print_sql) {
    const who = `(SELECT id FROM operators WHERE account = '${account.replace(/'/g, "''")}')`;
    console.log(`DELETE FROM operator_two_factor WHERE operator_id = ${who}; UPDATE sessions SET revoked_at_ms = ${Date.now()} WHERE kind = 'operator' AND revoked_at_ms IS NULL AND subject_id = ${who};`);
    return;
  }
  const { env, dispose } = await getPlatformProxy<Env>({ configPath: PLATFORM_CONFIG, persist: { path: `${args.persist_to}/v3` } });
  try {
    const db = getDb(env.DB);
    const operator = await db.query.operators.findFirst({ where: eq(operators.account, account) });
    if (!operator) {
      console.error(`no operator ${account}`);
      process.exitCode = 1;
      return;
    }
    await resetOperatorTwoFactor(db, operator.id, Date.now());
    console.log(`operator ${account}: authenticator key removed, sessions ended. ${ENROLMENT}`);
  } finally {
    await dispose();
  }
}
