/**
 * The walk a simulated market's prices follow (decision 102): the quote hubs run it second by
 * second (durable-objects/quotes/simulation.ts) and the verifier re-runs it from each revealed
 * seed (worker/domain/transparency/verify.ts). It imports only @noble/hashes, so a verifier can
 * take it with verify.ts and nothing else.
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";

const utf8 = (s: string) => new TextEncoder().encode(s);

/**
 * The walk a simulated market follows, named in each hour's commitment. Every second s of an
 * hour has draws HMAC-SHA256(seed, "<symbol>:<s>"), and the price moves from the previous
 * second's:
 *   z2    = 2 * (sum of the first 12 big-endian uint16 of the draw) - 12 * 65535
 *           (about normal, mean 0, standard deviation about 131072)
 *   burst = 4 when draw byte 24 < 5 (about 2 % of seconds), else 1
 *   raw   = price + trunc(price * burst * sigma_ppm * z2 / (131072 * 10^6))
 *   price = max(floor, round-half-up(raw / tick) * tick)
 *   volume_e8 = 5,000,000 + (big-endian uint32 of draw bytes 25..28) mod 200,000,000
 * Prices are integers in 10^-8 units. BigInt throughout, so every engine gets the same ticks.
 */
export const SIM_WALK = "hmac-sha256-irwin-hall-v1";

export type SimParams = { sigma_ppm: number; tick_e8: bigint; floor_e8: bigint };

export function simStep(seed: Uint8Array, symbol: string, second: number, price_e8: bigint, p: SimParams): { price_e8: bigint; volume_e8: number } {
  const d = hmac(sha256, seed, utf8(`${symbol}:${second}`));
  let sum = 0;
  for (let i = 0; i < 12; i += 1) sum += (d[2 * i] << 8) | d[2 * i + 1];
  const z2 = BigInt(2 * sum - 12 * 65535);
  const burst = d[24] < 5 ? 4n : 1n;
  const raw = price_e8 + (price_e8 * burst * BigInt(p.sigma_ppm) * z2) / (131072n * 1_000_000n);
  const rounded = raw <= 0n ? 0n : ((raw + p.tick_e8 / 2n) / p.tick_e8) * p.tick_e8;
  const volume_e8 = 5_000_000 + (((d[25] << 24) >>> 0) + (d[26] << 16) + (d[27] << 8) + d[28]) % 200_000_000;
  return { price_e8: rounded < p.floor_e8 ? p.floor_e8 : rounded, volume_e8 };
}

/** Every second's price of [from_s, to_s), starting from the price before from_s. */
export function simPrices(seed: Uint8Array, symbol: string, from_s: number, to_s: number, start_e8: bigint, p: SimParams): bigint[] {
  const out: bigint[] = [];
  let price = start_e8;
  for (let s = from_s; s < to_s; s += 1) {
    price = simStep(seed, symbol, s, price, p).price_e8;
    out.push(price);
  }
  return out;
}
