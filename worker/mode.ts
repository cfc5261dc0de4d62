import type { Env } from "./env";

/**
 * What money this deployment moves. Real money needs a real price feed: a production deploy
 * without one runs as a labelled demo (deposits and withdrawals closed, balances are demo
 * money), so nobody ever stakes real money on the simulation.
 * - "live": production with a real exchange feed configured;
 * - "demo": production without a real feed;
 * - "local": `npm start`, tests and benches (simulated prices, labelled as such).
 */
export type Mode = "live" | "demo" | "local";

export function hasRealFeed(env: Pick<Env, "PRICE_FEED" | "PRICE_FEED_URL">): boolean {
  return env.PRICE_FEED === "binance" && Boolean(env.PRICE_FEED_URL);
}

export function modeOf(env: Pick<Env, "APP_ENV" | "PRICE_FEED" | "PRICE_FEED_URL">): Mode {
  if (env.APP_ENV !== "production") return "local";
  return hasRealFeed(env) ? "live" : "demo";
}

/** Deposits and withdrawals move real money: closed in a demo deployment. */
export function moneyMovementOpen(env: Pick<Env, "APP_ENV" | "PRICE_FEED" | "PRICE_FEED_URL">): boolean {
  return modeOf(env) !== "demo";
}
