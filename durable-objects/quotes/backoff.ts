/**
 * How long the price feed waits before it connects again: exponential, capped, with jitter, so
 * a failing exchange is not hammered and the hubs of many symbols (each with its own
 * connection) do not come back in step.
 */

export type Backoff = { min_ms: number; max_ms: number; factor: number };

/** 0.5-1 s after the first failure, doubling up to 16-32 s. */
export const FEED_BACKOFF: Backoff = { min_ms: 1_000, max_ms: 32_000, factor: 2 };

/**
 * The wait after `failures` failures in a row (1 or more): the exponential step
 * `min * factor^(failures-1)`, capped at `max`, with "equal jitter" (a random point in its
 * upper half). With a factor of 2 each range starts where the one before ends, so the waits
 * never shrink on the way up to the cap, yet no two clients share a schedule.
 */
export function reconnectDelay(failures: number, b: Backoff, random: () => number): number {
  const step = Math.min(b.max_ms, b.min_ms * b.factor ** Math.max(0, failures - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}
