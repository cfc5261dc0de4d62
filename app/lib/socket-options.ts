import type { Options } from "partysocket/ws";

/**
 * How every page socket comes back after a drop (partysocket's backoff), with jitter: when a
 * deploy or a busy hub closes thousands of sockets at once, a fixed first delay would bring
 * every page back in the same instant, and each later retry too. Each socket draws its own first
 * delay, growth and ceiling once, from these bounds.
 */
export const RECONNECT_BOUNDS = {
  first_delay_ms: [500, 2_000],
  growth: [1.3, 1.7],
  max_delay_ms: [10_000, 15_000],
} as const;

type ReconnectOptions = Required<Pick<Options, "maxRetries" | "minReconnectionDelay" | "reconnectionDelayGrowFactor" | "maxReconnectionDelay">>;

const between = ([low, high]: readonly [number, number], random: () => number) => low + random() * (high - low);

/** partysocket options for one socket: retry for ever, with its own jittered backoff. `random` is for tests. */
export function reconnectOptions(random: () => number = Math.random): ReconnectOptions {
  return {
    maxRetries: Infinity,
    minReconnectionDelay: between(RECONNECT_BOUNDS.first_delay_ms, random),
    reconnectionDelayGrowFactor: between(RECONNECT_BOUNDS.growth, random),
    maxReconnectionDelay: between(RECONNECT_BOUNDS.max_delay_ms, random),
  };
}
