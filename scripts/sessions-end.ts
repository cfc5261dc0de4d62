/**
 * `npm run sessions:end -- --all|--user N --reason "..." --base URL [--dry-run]`: the incident's
 * "end every session" (decision 137). Every user's sessions (and every other operator's), or one
 * user's, end in D1 with an audit row per batch (`sessions.end`), and the pages' sockets opened
 * under them close (decision 119).
 *
 * Why through the Worker: a Node script reaches D1 (through wrangler) but never Durable Objects,
 * and only the Worker can tell the user channels, conversations and quote hubs. So this command
 * calls the console's admin route `POST /api/admin/sessions/end` as an operator, batch after
 * batch (each answers where the next starts), and prints the counts. The operator's session
 * token comes from the environment (OPERATOR_TOKEN), never the command line; that session is the
 * one operator session kept. Run it with --dry-run first: it counts and changes nothing.
 */
import { parseArgs } from "node:util";

const USAGE = 'usage: OPERATOR_TOKEN=... npm run sessions:end -- (--all | --user <id>) --reason "<why>" --base https://host [--dry-run]';
const { values } = parseArgs({
  options: { all: { type: "boolean", default: false }, user: { type: "string" }, reason: { type: "string" }, base: { type: "string" }, "dry-run": { type: "boolean", default: false } },
  strict: true,
});
const token = process.env.OPERATOR_TOKEN ?? "";
const user_id = values.user !== undefined && /^[1-9]\d{0,14}$/.test(values.user) ? Number(values.user) : null;
if (values.all === (values.user !== undefined) || (values.user !== undefined && user_id === null) || !values.reason?.trim() || !values.base || !token) {
  console.error(`${USAGE}\n(exactly one of --all and --user; a reason; the Worker's URL; an operator session token in OPERATOR_TOKEN)`);
  process.exit(2);
}
const base = values.base.replace(/\/$/, "");
const dry_run = values["dry-run"]!;

type Answer = { code: number; msg: string; data: { users: number; user_sessions: number; operator_sessions: number; next_after_user_id: number | null } };

let after_user_id = 0;
const total = { batches: 0, users: 0, user_sessions: 0, operator_sessions: 0 };
for (;;) {
  const res = await fetch(`${base}/api/admin/sessions/end`, {
    method: "POST",
    headers: { "content-type": "application/json", token },
    body: JSON.stringify({ ...(values.all ? { all: true } : { user_id }), reason: values.reason, dry_run, after_user_id }),
  });
  const answer = (await res.json()) as Answer;
  if (answer.code !== 1) {
    console.error(`refused (HTTP ${res.status}): ${answer.msg}`);
    process.exit(1);
  }
  const d = answer.data;
  total.batches += 1;
  total.users += d.users;
  total.user_sessions += d.user_sessions;
  total.operator_sessions += d.operator_sessions;
  console.log(`batch ${total.batches}: ${d.users} user(s), ${d.user_sessions} user session(s), ${d.operator_sessions} operator session(s) ${dry_run ? "would end" : "ended, their sockets closed"}`);
  // A dry run counts one batch of users at a time too, from where the real run would go on.
  if (d.next_after_user_id === null) break;
  after_user_id = d.next_after_user_id;
}
console.log(
  `${dry_run ? "dry run: would end" : "ended"} ${total.user_sessions} user session(s) of ${total.users} user(s) and ${total.operator_sessions} operator session(s) in ${total.batches} batch(es)${dry_run ? "; nothing changed" : "; audited as sessions.end"}`,
);
