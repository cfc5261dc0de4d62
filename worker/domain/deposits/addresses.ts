/**
 * Per-user deposit addresses, derived from a channel's extended PUBLIC key (BIP-32): user N's
 * address is the non-hardened child N. Only public keys are handled here, so the app can
 * show every user their own address without ever holding a key that could spend from it.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { HDKey } from "@scure/bip32";
import { ethereumAddress } from "../chains/ethereum";
import { tronAddress } from "../chains/tron";

/** Address rules the app can derive for: TRON (TRC20) and Ethereum (ERC20). */
export type AddressRule = "tron" | "ethereum";

const RULES: Record<string, AddressRule> = { TRC20: "tron", ERC20: "ethereum" };

/** The address rule of a channel's chain (upper-case name as stored), or null when unsupported. */
export function addressRule(chain: string): AddressRule | null {
  return RULES[chain.toUpperCase()] ?? null;
}

/** Non-hardened BIP-32 children are 0 … 2^31 − 1; user ids are the indices. */
const MAX_INDEX = 0x7fffffff;

export type ParsedXpub = { status: "ok"; key: HDKey } | { status: "invalid" | "private_key" };

/**
 * Parses an extended key as operators paste it. A private key (xprv) is refused outright:
 * the app must never store one, even by mistake.
 */
export function parseXpub(text: string): ParsedXpub {
  const trimmed = text.trim();
  if (/^[xtyzuv]prv/i.test(trimmed)) return { status: "private_key" };
  let key: HDKey;
  try {
    key = HDKey.fromExtendedKey(trimmed);
  } catch {
    return { status: "invalid" };
  }
  if (key.privateKey) return { status: "private_key" };
  if (!key.publicKey) return { status: "invalid" };
  return { status: "ok", key };
}

/** The 20-byte account id both chains share: the last 20 bytes of keccak256(X ‖ Y). */
function accountId(compressed: Uint8Array): Uint8Array {
  const uncompressed = secp256k1.Point.fromBytes(compressed).toBytes(false);
  return keccak_256(uncompressed.subarray(1)).subarray(12);
}

/** The chain's address for a compressed secp256k1 public key. */
export function addressOfPublicKey(rule: AddressRule, compressed: Uint8Array): string {
  const id = accountId(compressed);
  return rule === "ethereum" ? ethereumAddress(id) : tronAddress(id);
}

export type DeriveResult = { status: "ok"; address: string } | { status: "invalid_xpub" | "unsupported_chain" | "index_out_of_range" };

/** User `index`'s address on a channel of `chain` whose operators set `xpub`. */
export function deriveAddress(chain: string, xpub: string, index: number): DeriveResult {
  const rule = addressRule(chain);
  if (!rule) return { status: "unsupported_chain" };
  if (!Number.isSafeInteger(index) || index < 0 || index > MAX_INDEX) return { status: "index_out_of_range" };
  const parsed = parseXpub(xpub);
  if (parsed.status !== "ok") return { status: "invalid_xpub" };
  const child = parsed.key.deriveChild(index);
  if (!child.publicKey) return { status: "invalid_xpub" };
  return { status: "ok", address: addressOfPublicKey(rule, child.publicKey) };
}
