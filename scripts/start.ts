/**
 * `npm start`: build, apply D1 migrations, seed the demo data (idempotent), and serve the
 * whole app at http://127.0.0.1:8787 (PORT overrides) with local D1/R2/DO state.
 */
import { prepare, wranglerDev } from "./lib";

const port = process.env.PORT ?? "8787";
await prepare(".wrangler/state");
console.log(`\nProofline: http://127.0.0.1:${port}  (demo / demo12345, console /admin: operator / operator12345)\n`);
wranglerDev(port, ".wrangler/state");
