import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";
import { addressOfPrivateKey, signBip137 } from "../../worker/domain/identity/bip137";
import { keepNewKey, readSealedKey, withSecret, type SealedKey } from "./device-key-vault";

/**
 * The fallback when the browser has no wallet: a Bitcoin key made on this device (decision
 * 058), kept sealed in its IndexedDB (device-key-vault.ts, decision 111). It never leaves the
 * device except by the user's export, and is in clear only while it signs or is exported.
 */
export type DeviceKey = { address: string; sign(message: string): Promise<string>; exportWif(): Promise<string> };

/** The stored key (a clear one from an older version is sealed first), or null when there is none or storage fails. */
export async function storedDeviceKey(): Promise<DeviceKey | null> {
  try {
    const sealed = await readSealedKey();
    return sealed ? deviceKey(sealed) : null;
  } catch {
    return null;
  }
}

/** The stored key, or a new one stored now; throws when storage refuses (private mode, quota, no WebCrypto). */
export async function loadOrCreateDeviceKey(): Promise<DeviceKey> {
  const existing = await readSealedKey();
  if (existing) return deviceKey(existing);
  const secret = secp256k1.utils.randomSecretKey();
  try {
    const kept = await keepNewKey(secret);
    // Read back: a key that was not kept would sign in an account nobody can reach again. Another
    // tab's key, stored a moment earlier, wins and ours was never used.
    const again = await readSealedKey();
    if (!again || again.address !== kept.address || (await withSecret(again, addressOfPrivateKey)) !== again.address) throw new Error("storage did not keep the key");
    return deviceKey(again);
  } finally {
    secret.fill(0);
  }
}

function deviceKey(sealed: SealedKey): DeviceKey {
  return {
    address: sealed.address,
    sign: (message) => withSecret(sealed, (secret) => signBip137(message, secret)),
    exportWif: () => withSecret(sealed, wif),
  };
}

/** Wallet Import Format for a mainnet key with a compressed public key (what P2WPKH uses). */
export function wif(key: Uint8Array): string {
  const payload = new Uint8Array(34);
  payload[0] = 0x80;
  payload.set(key, 1);
  payload[33] = 0x01;
  const encoded = createBase58check(sha256).encode(payload);
  payload.fill(0);
  return encoded;
}
