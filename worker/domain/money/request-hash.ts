import { sha256 } from "@noble/hashes/sha2.js";
import { hex } from "@scure/base";

/**
 * The fingerprint of a money request's meaningful fields, stored beside its idempotency key:
 * the same key with the same fields replays the first answer; with other fields it is refused.
 */
export function requestHash(fields: Record<string, string | number | null>): string {
  const canonical = JSON.stringify(Object.keys(fields).sort().map((k) => [k, fields[k]]));
  return hex.encode(sha256(new TextEncoder().encode(canonical)));
}
