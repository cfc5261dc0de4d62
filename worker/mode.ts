import { appEnvOf } from "./app-env";
import type { Wallet } from "./domain/ledger/accounts";
import { feedUrlAllowed } from "./domain/quotes/upstream-url";

export { APP_ENVS, appEnvOf, isLocalRun, type AppEnvName } from "./app-env";
import type { Env } from "./env";

/**
 * What money this deployment moves, chosen explicitly by `APP_ENV` (decision 122), never by
 * what happens to be configured:
 * - `production`: real money on a real exchange feed at an allowed upstream ("live"). Without a
 *   usable feed it is "unready": it refuses orders and says so on its health route, and never
 *   simulates prices (real stakes on a simulation would be a game the house designs);
 * - `demo`: a labelled demo on the simulated feed; new accounts get demo money in their own
 *   demo accounts, deposits and withdrawals are closed;
 * - `local`, `test`: `npm start`, the tests and benches (simulated prices, labelled as such).
 * Any other value refuses to serve anything (worker/index.ts): `prod` is not production.
 */
export type Mode = "live" | "unready" | "demo" | "local";

type ModeEnv = Pick<Env, "APP_ENV" | "PRICE_FEED" | "PRICE_FEED_URL" | "PRICE_FEED_ALLOWED_HOSTS" | "PRICE_FEED_ALLOW_LOOPBACK">;

/** A feed the hub will actually connect to: a URL off the allow-list never delivers a price. */
export function hasRealFeed(env: ModeEnv): boolean {
  return env.PRICE_FEED === "binance" && feedUrlAllowed(env);
}

/** The mode of a deployment whose APP_ENV is valid (an invalid one is "local" here and refused at the entry). */
export function modeOf(env: ModeEnv): Mode {
  switch (appEnvOf(env)) {
    case "production":
      return hasRealFeed(env) ? "live" : "unready";
    case "demo":
      return "demo";
    default:
      return "local";
  }
}

/**
 * Where a hub's ticks come from: the exchange, the simulation, or nowhere (production without a
 * usable feed has no prices, and so no orders). Locally the exchange feed is tried when asked for.
 */
export function feedKind(env: ModeEnv): "exchange" | "simulation" | "none" {
  switch (modeOf(env)) {
    case "live":
      return "exchange";
    case "unready":
      return "none";
    case "demo":
      return "simulation";
    default:
      return env.PRICE_FEED === "binance" ? "exchange" : "simulation";
  }
}

/** Deposits and withdrawals move real money: closed in a demo deployment. */
export function moneyMovementOpen(env: ModeEnv): boolean {
  return modeOf(env) !== "demo";
}

/** Whose money orders stake and balances show: a demo deployment's own demo accounts, or real ones. */
export function walletOf(env: ModeEnv): Wallet {
  return modeOf(env) === "demo" ? "demo" : "real";
}
