import { secp256k1 } from "@noble/curves/secp256k1.js";
import { hex } from "@scure/base";
import { addressOfPrivateKey } from "../../worker/domain/identity/bip137";

/**
 * Where the device Bitcoin key lives (decision 111): in IndexedDB, as AES-GCM ciphertext under
 * a WebCrypto key made non-extractable, so no script, storage dump or export of the site's data
 * ever reads the secret's bytes; the browser keeps the AES key's material to itself. The secret
 * exists in clear only in memory, for one signature or the user's export, and is zeroed after.
 * A key an older version kept as hex in localStorage is sealed here on first use, then removed.
 */
export type SealedKey = {
  /** The key's bc1q address: public, kept in clear so the page can show it without unsealing. */
  address: string;
  /** AES-GCM 256, extractable false, usable only to encrypt and decrypt. */
  wrapping_key: CryptoKey;
  iv: Bytes;
  /** The 32-byte secret encrypted with the address as additional data, so records cannot be swapped. */
  ciphertext: Bytes;
};

/** WebCrypto takes bytes over an ArrayBuffer (never a SharedArrayBuffer), as ours all are. */
type Bytes = Uint8Array<ArrayBuffer>;

const DB_NAME = "proofline-device-key";
const STORE = "keys";
/** The device key's record; a different clear key found beside it is kept under `archived:<address>`. */
const DEVICE = "btc";
/** Where decision 058 kept the key as hex; read only to move it here. */
const LEGACY_STORAGE_KEY = "pl_device_btc_key";

/** The device's key, after sealing a clear one left by an older version; null when there is none. */
export async function readSealedKey(): Promise<SealedKey | null> {
  await migrateClearKey();
  return (await inStore<SealedKey | undefined>("readonly", (store, done) => request(store.get(DEVICE), done))) ?? null;
}

/**
 * Seals `secret` as the device key unless one exists already (another tab may have made one a
 * moment ago): one transaction reads and adds, and the stored key is the answer either way.
 */
export async function keepNewKey(secret: Uint8Array): Promise<SealedKey> {
  const sealed = await seal(secret);
  return inStore<SealedKey>("readwrite", (store, done) =>
    request(store.get(DEVICE), (existing: SealedKey | undefined) => {
      if (existing) return done(existing);
      store.add(sealed, DEVICE);
      done(sealed);
    }),
  );
}

/** Decrypts the secret for `use` alone; the bytes are zeroed as soon as it returns. */
export async function withSecret<T>(sealed: SealedKey, use: (secret: Uint8Array) => T): Promise<T> {
  const secret = await unseal(sealed);
  try {
    return use(secret);
  } finally {
    secret.fill(0);
  }
}

async function seal(secret: Uint8Array): Promise<SealedKey> {
  const address = addressOfPrivateKey(secret);
  const wrapping_key = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const encrypted = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: addressBytes(address) }, wrapping_key, secret as Bytes);
  return { address, wrapping_key, iv, ciphertext: new Uint8Array(encrypted) };
}

async function unseal(sealed: SealedKey): Promise<Uint8Array> {
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: sealed.iv, additionalData: addressBytes(sealed.address) }, sealed.wrapping_key, sealed.ciphertext);
  return new Uint8Array(plain);
}

const addressBytes = (address: string) => new TextEncoder().encode(address) as Bytes;

/**
 * A hex key in localStorage is sealed, read back and checked, and only then deleted: a key
 * lost here is an account lost. Beside a different sealed key (an older tab made a new clear
 * one) it is kept sealed under its own name rather than dropped.
 */
async function migrateClearKey(): Promise<void> {
  const clear = legacyClearKey();
  if (!clear) return;
  try {
    const sealed = await seal(clear);
    const id = await inStore<string>("readwrite", (store, done) =>
      request(store.get(DEVICE), (existing: SealedKey | undefined) => {
        if (existing?.address === sealed.address) return done(DEVICE);
        const target = existing ? `archived:${sealed.address}` : DEVICE;
        store.put(sealed, target);
        done(target);
      }),
    );
    const kept = await inStore<SealedKey | undefined>("readonly", (store, done) => request(store.get(id), done));
    const same = kept ? await withSecret(kept, (secret) => hex.encode(secret) === hex.encode(clear)) : false;
    if (!same) throw new Error("the sealed device key did not read back");
    window.localStorage.removeItem(LEGACY_STORAGE_KEY);
  } finally {
    clear.fill(0);
  }
}

function legacyClearKey(): Uint8Array | null {
  try {
    const raw = window.localStorage.getItem(LEGACY_STORAGE_KEY);
    if (!raw || !/^[0-9a-f]{64}$/.test(raw)) return null;
    const key = hex.decode(raw);
    return secp256k1.utils.isValidSecretKey(key) ? key : null;
  } catch {
    return null;
  }
}

/** One transaction on the store; `work` calls `done` with the answer, which is given once the transaction has committed. */
async function inStore<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore, done: (value: T) => void) => void): Promise<T> {
  const db = await openDb();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      let answer: T;
      tx.oncomplete = () => resolve(answer);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error("IndexedDB transaction aborted"));
      work(tx.objectStore(STORE), (value) => {
        answer = value;
      });
    });
  } finally {
    db.close();
  }
}

function request<R>(req: IDBRequest, then: (result: R) => void): void {
  req.onsuccess = () => then(req.result as R);
}

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}
