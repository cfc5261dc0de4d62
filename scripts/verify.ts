/**
 * `npm run verify -- --base URL [--token T] [--pin KEY] [--witness VKEY ...] [--quorum N]`:
 * checks a Proofline server's transparency log without trusting it (scripts/verify-log.ts says
 * what is checked; all of it is worker/domain/transparency/verify.ts, the code the browser runs).
 * With witnesses (named by the log, or pinned with --witness), the checkpoint served as the
 * latest must carry valid cosignatures of at least the quorum, and the missing ones are named.
 *
 * One line per check, a summary, and exit code 1 on any failure.
 */
import { parseArgs } from "node:util";
import { verifyLog } from "./verify-log";

const { values } = parseArgs({ options: { base: { type: "string" }, token: { type: "string" }, pin: { type: "string" }, witness: { type: "string", multiple: true }, quorum: { type: "string" } } });
if (!values.base || (values.quorum !== undefined && !/^\d{1,3}$/.test(values.quorum))) {
  console.error("usage: npm run verify -- --base http://127.0.0.1:8787 [--token T] [--pin <verifier key>] [--witness <witness verifier key>]... [--quorum N]");
  process.exit(2);
}
const base = values.base.replace(/\/$/, "");
const r = await verifyLog({
  fetch: (path, init) => fetch(base + path, init),
  token: values.token,
  pin: values.pin,
  witnesses: values.witness,
  quorum: values.quorum === undefined ? undefined : Number(values.quorum),
  say: (ok, line) => console.log(`${ok ? "ok  " : "FAIL"} ${line}`),
  log: (line) => console.log(line),
});
console.log(`\n${r.checks} checks, ${r.failures} failed: ${r.failures ? "DO NOT TRUST this log" : `the log ${r.origin} is consistent${values.token ? " and holds your transfers" : ""}`}`);
process.exit(r.failures ? 1 : 0);
