/**
 * How fast one session and one network may place orders on a market (decision 124): token
 * buckets in the hub's memory, so the check reads nothing. A tap-happy person never meets them;
 * a script hammering a market, or an empty account trying to crowd it, gets a clear 429 with
 * the wait instead of a place in the write queue.
 */
export const ORDER_RATES = {
  /** One signed-in session: 5 orders a second, 20 at once. */
  session: { per_s: 5, burst: 20 },
  /** One network (an IPv4 address or an IPv6 /64): 20 a second, 60 at once. */
  network: { per_s: 20, burst: 60 },
} as const;

/** Buckets kept at most (the least recently used go first; a forgotten one starts full). */
const MAX_BUCKETS = 50_000;

type Bucket = { tokens: number; at_ms: number };
type Rate = { per_s: number; burst: number };

export class OrderRates {
  private readonly buckets = new Map<string, Bucket>();

  /**
   * Takes one token from each named bucket, or none: the wait until all have one, if any is
   * empty. `network` null (in-process calls, scripts) is not counted.
   */
  take(session: string, network: string | null, now_ms: number): { ok: true } | { ok: false; retry_after_ms: number } {
    const wanted: [string, Rate][] = [[`s:${session}`, ORDER_RATES.session]];
    if (network !== null) wanted.push([`n:${network}`, ORDER_RATES.network]);
    const filled = wanted.map(([key, rate]) => [key, this.refill(key, rate, now_ms), rate] as const);
    const short = filled.filter(([, b]) => b.tokens < 1);
    if (short.length > 0) return { ok: false, retry_after_ms: Math.max(...short.map(([, b, rate]) => Math.ceil(((1 - b.tokens) * 1000) / rate.per_s))) };
    for (const [key, b] of filled) this.keep(key, { tokens: b.tokens - 1, at_ms: now_ms });
    return { ok: true };
  }

  private refill(key: string, rate: Rate, now_ms: number): Bucket {
    const b = this.buckets.get(key);
    if (!b) return { tokens: rate.burst, at_ms: now_ms };
    return { tokens: Math.min(rate.burst, b.tokens + ((now_ms - b.at_ms) * rate.per_s) / 1000), at_ms: now_ms };
  }

  private keep(key: string, b: Bucket) {
    this.buckets.delete(key);
    this.buckets.set(key, b);
    while (this.buckets.size > MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
  }
}
