/**
 * `npm start`: build, apply D1 migrations, seed the demo data (idempotent), and serve the
 * whole app at http://127.0.0.1:8787 (PORT overrides) with local D1/R2/DO state, in one workerd
 * process (scripts/workerd-serve.ts).
 */
import { prepare, stateDir } from "./lib";
import { workerdServe } from "./workerd-serve";

const port = Number(process.env.PORT ?? "8787");
const state = stateDir("state");
// `npm test` has built already when it starts this for the installability check.
await prepare(state, { build: process.env.PROOFLINE_BUILT !== "1" });
const server = await workerdServe({ port, persistTo: state, vars: { APP_ENV: "local", D1_LIMITS: "enforce" } });
// The demo logins only on a terminal: a test run's output holds no password (scripts/run-secrets.ts).
const logins = process.stdout.isTTY ? "demo / demo12345, console /admin: operator / operator12345, then an authenticator code" : "logins";
console.log(`\nProofline: ${server.url.origin}  (${logins}: README "Demo logins")\n`);
const stop = () => server.stop().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
