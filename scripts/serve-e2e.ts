/** The server Playwright starts: a fresh local state, migrated and seeded, on port 8799. */
import { rmSync } from "node:fs";
import { prepare, wranglerDev } from "./lib";

export const E2E_PORT = process.env.E2E_PORT ?? "8799";
const state = ".wrangler/e2e";
rmSync(state, { recursive: true, force: true });
// `npm test` has built already; a standalone `npx playwright test` builds here.
await prepare(state, { build: process.env.PROOFLINE_BUILT !== "1" });
// The journeys may move the earn clock forward (worker/clock.ts): only this test server allows it.
wranglerDev(E2E_PORT, state, ["--var", "TEST_CLOCK:1"]);
