/**
 * `npm start`: build, apply D1 migrations, seed the demo data (idempotent), and serve the
 * whole app at http://127.0.0.1:8787 (PORT overrides) with local D1/R2/DO state.
 */
import { prepare, wranglerDev } from "./lib";

const port = process.env.PORT ?? "8787";
// `npm test` has built already when it starts this for the installability check.
await prepare(".wrangler/state", { build: process.env.PROOFLINE_BUILT !== "1" });
console.log(`\nProofline: http://127.0.0.1:${port}  (demo / demo12345, console /admin: operator / operator12345)\n`);
wranglerDev(port, ".wrangler/state");
