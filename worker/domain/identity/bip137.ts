import { secp256k1 } from "@noble/curves/secp256k1.js";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base64, bech32 } from "@scure/base";

/**
 * Bitcoin message signing (BIP-137) for P2WPKH (native SegWit, `bc1q...`) addresses: the one
 * address type a device key uses (decision 058). Pure functions, shared by the server's check,
 * the browser's device key (app/lib/wallet-device-key.ts) and the tests.
 */

const PREFIX = new TextEncoder().encode("\x18Bitcoin Signed Message:\n");
/** BIP-137 header bytes: 27 + recovery id, +4 for a compressed key, +12 for P2WPKH. */
const HEADER_COMPRESSED_P2PKH = 31;
const HEADER_P2WPKH = 39;

/** Bitcoin's CompactSize length prefix. */
function varint(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >> 8);
  return Uint8Array.of(0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24);
}

/** double-SHA-256 of the prefix, the message's length and the message (UTF-8). */
export function bitcoinMessageHash(message: string): Uint8Array {
  const body = new TextEncoder().encode(message);
  const len = varint(body.length);
  const data = new Uint8Array(PREFIX.length + len.length + body.length);
  data.set(PREFIX, 0);
  data.set(len, PREFIX.length);
  data.set(body, PREFIX.length + len.length);
  return sha256(sha256(data));
}

/** The mainnet P2WPKH address of a compressed public key. */
export function p2wpkhAddress(compressedPublicKey: Uint8Array): string {
  const program = ripemd160(sha256(compressedPublicKey));
  return bech32.encode("bc", [0, ...bech32.toWords(program)]);
}

export function addressOfPrivateKey(privateKey: Uint8Array): string {
  return p2wpkhAddress(secp256k1.getPublicKey(privateKey, true));
}

/** A mainnet witness v0 key-hash address (20-byte program), checksum included. */
export function isP2wpkhAddress(address: string): boolean {
  try {
    const { prefix, words } = bech32.decode(address as `${string}1${string}`);
    return prefix === "bc" && words[0] === 0 && bech32.fromWords(words.slice(1)).length === 20;
  } catch {
    return false;
  }
}

/** The compact 65-byte recoverable signature, base64, with the P2WPKH header byte. */
export function signBip137(message: string, privateKey: Uint8Array): string {
  const sig = secp256k1.sign(bitcoinMessageHash(message), privateKey, { prehash: false, format: "recovered" });
  const out = sig.slice();
  out[0] = HEADER_P2WPKH + sig[0];
  return base64.encode(out);
}

/**
 * True only when the signature recovers to a key whose P2WPKH address is `address`. Headers
 * 31-34 (compressed P2PKH) are accepted too, as some wallets sign SegWit addresses with them;
 * uncompressed keys never have a P2WPKH address.
 */
export function verifyBip137(message: string, signatureBase64: string, address: string): boolean {
  const sig = decodeSignature(signatureBase64);
  if (!sig) return false;
  const header = sig[0];
  const base = [HEADER_P2WPKH, HEADER_COMPRESSED_P2PKH].find((b) => header >= b && header <= b + 3);
  if (base === undefined) return false;
  const recovered = sig.slice();
  recovered[0] = header - base;
  try {
    const key = secp256k1.recoverPublicKey(recovered, bitcoinMessageHash(message), { prehash: false });
    return p2wpkhAddress(key) === address;
  } catch {
    return false;
  }
}

function decodeSignature(text: string): Uint8Array | null {
  try {
    const bytes = base64.decode(text);
    return bytes.length === 65 ? bytes : null;
  } catch {
    return null;
  }
}
