/**
 * Ethereum (ERC20) addresses: "0x" + the 20-byte account id in hex, with the EIP-55 mixed-case
 * checksum, so wallets can catch a mistyped address. The one home for Ethereum address rules.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { hex } from "@scure/base";

/** EIP-55: each hex letter upper-cased where the keccak of the lower-case address has a nibble ≥ 8. */
export function eip55(hex40: string): string {
  const lower = hex40.toLowerCase();
  const hash = hex.encode(keccak_256(new TextEncoder().encode(lower)));
  let out = "0x";
  for (let i = 0; i < 40; i++) out += parseInt(hash[i], 16) >= 8 ? lower[i].toUpperCase() : lower[i];
  return out;
}

/** The checksummed address of a 20-byte account id (the last 20 bytes of keccak256 of the public key). */
export function ethereumAddress(accountId: Uint8Array): string {
  return eip55(hex.encode(accountId));
}

/**
 * An address written with its own EIP-55 checksum. All lower case carries no checksum, so it
 * is refused where the checksum is required (a Sign-In with Ethereum message, decision 110).
 */
export function isChecksummedAddress(address: string): boolean {
  return /^0x[0-9a-fA-F]{40}$/.test(address) && eip55(address.slice(2)) === address;
}
