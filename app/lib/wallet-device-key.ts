import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check, hex } from "@scure/base";
import { addressOfPrivateKey, signBip137 } from "../../worker/domain/identity/bip137";

/**
 * The fallback when the browser has no wallet: a Bitcoin key made on this device and kept in
 * its localStorage (decision 058). It never leaves the device except by the user's export.
 */
const STORAGE_KEY = "pl_device_btc_key";

export type DeviceKey = { address: string; sign(message: string): string; exportWif(): string };

/** The stored key, or null when there is none (or storage is unavailable). */
export function storedDeviceKey(): DeviceKey | null {
  try {
    const raw = window.localStorage.getItem(STORAGE_KEY);
    if (!raw || !/^[0-9a-f]{64}$/.test(raw)) return null;
    const key = hex.decode(raw);
    return secp256k1.utils.isValidSecretKey(key) ? deviceKey(key) : null;
  } catch {
    return null;
  }
}

/** The stored key, or a new one stored now; throws when storage refuses (private mode, quota). */
export function loadOrCreateDeviceKey(): DeviceKey {
  const existing = storedDeviceKey();
  if (existing) return existing;
  const key = secp256k1.utils.randomSecretKey();
  window.localStorage.setItem(STORAGE_KEY, hex.encode(key));
  // Read back: a key that was not kept would sign in an account nobody can reach again.
  const kept = storedDeviceKey();
  if (!kept || kept.address !== addressOfPrivateKey(key)) throw new Error("storage did not keep the key");
  return kept;
}

function deviceKey(key: Uint8Array): DeviceKey {
  return { address: addressOfPrivateKey(key), sign: (message) => signBip137(message, key), exportWif: () => wif(key) };
}

/** Wallet Import Format for a mainnet key with a compressed public key (what P2WPKH uses). */
export function wif(key: Uint8Array): string {
  const payload = new Uint8Array(34);
  payload[0] = 0x80;
  payload.set(key, 1);
  payload[33] = 0x01;
  return createBase58check(sha256).encode(payload);
}
