/** The server Playwright starts: a fresh local state, migrated and seeded, served as `npm start` serves it. */
import { rmSync } from "node:fs";
import { e2eStateDir, prepare } from "./lib";
import { workerdServe } from "./workerd-serve";

export const E2E_PORT = process.env.E2E_PORT ?? "8799";
const state = e2eStateDir();
rmSync(state, { recursive: true, force: true });
// `npm test` has built already; a standalone `npx playwright test` builds here.
await prepare(state, { build: process.env.PROOFLINE_BUILT !== "1" });
// The journeys may move the earn clock forward (worker/clock.ts): only this test server allows it.
// Every journey signs in from 127.0.0.1, dozens a minute: the sign-in limiter (30 a minute per address in
// production, tested in tests/api) gets a budget the whole suite cannot reach, or a fast run trips it at random.
// The guest limits of customer service per network (five new conversations an hour) likewise: GUEST_LIMITS_SCALE.
const server = await workerdServe({
  port: Number(E2E_PORT),
  persistTo: state,
  vars: { APP_ENV: "local", D1_LIMITS: "enforce", TEST_CLOCK: "1", GUEST_LIMITS_SCALE: "100" },
  ratelimits: { AUTH_LIMIT: { limit: 10_000, period: 60 } },
});
const stop = () => server.stop().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
