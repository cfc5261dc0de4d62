import { feedUrlAllowed } from "./domain/trades/upstream-url";
import type { Env } from "./env";

/**
 * What money this deployment moves. Real money needs a real price feed: a production deploy
 * without one runs as a labelled demo (deposits and withdrawals closed, balances are demo
 * money), so nobody ever stakes real money on the simulation.
 * - "live": production with a real exchange feed configured at an allowed upstream;
 * - "demo": production without a real feed;
 * - "local": `npm start`, tests and benches (simulated prices, labelled as such).
 */
export type Mode = "live" | "demo" | "local";

type ModeEnv = Pick<Env, "APP_ENV" | "PRICE_FEED" | "PRICE_FEED_URL" | "PRICE_FEED_ALLOWED_HOSTS" | "PRICE_FEED_ALLOW_LOOPBACK">;

/** A feed the hub will actually connect to: a URL off the allow-list never delivers a price. */
export function hasRealFeed(env: ModeEnv): boolean {
  return env.PRICE_FEED === "binance" && feedUrlAllowed(env);
}

export function modeOf(env: ModeEnv): Mode {
  if (env.APP_ENV !== "production") return "local";
  return hasRealFeed(env) ? "live" : "demo";
}

/** Deposits and withdrawals move real money: closed in a demo deployment. */
export function moneyMovementOpen(env: ModeEnv): boolean {
  return modeOf(env) !== "demo";
}
