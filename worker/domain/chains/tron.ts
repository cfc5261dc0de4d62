/**
 * TRON (TRC20) addresses: base58check of 0x41 + a 20-byte account id, where the 4-byte
 * checksum is the start of sha256(sha256(those 21 bytes)). Always 34 characters starting
 * with "T". The one home for TRON address rules: the binding form checks them here and
 * deposit addresses are encoded here, with @scure/base's audited base58check, so a typo
 * (which almost surely breaks the checksum) cannot send funds astray.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";

/** The mainnet prefix byte every TRON account address starts with. */
const TRON_PREFIX = 0x41;
const ACCOUNT_ID_BYTES = 20;

const base58check = createBase58check(sha256);

/** The address of a 20-byte account id (the last 20 bytes of keccak256 of the public key). */
export function tronAddress(accountId: Uint8Array): string {
  if (accountId.length !== ACCOUNT_ID_BYTES) throw new RangeError("a TRON account id is 20 bytes");
  const payload = new Uint8Array(1 + ACCOUNT_ID_BYTES);
  payload[0] = TRON_PREFIX;
  payload.set(accountId, 1);
  return base58check.encode(payload);
}

/** True for a well-formed mainnet address whose checksum holds. */
export function isTronAddress(text: string): boolean {
  // The shape first: it also refuses leading "1"s, which base58 would read as zero bytes.
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(text)) return false;
  let payload: Uint8Array;
  try {
    payload = base58check.decode(text);
  } catch {
    return false; // bad checksum
  }
  return payload.length === 1 + ACCOUNT_ID_BYTES && payload[0] === TRON_PREFIX;
}
