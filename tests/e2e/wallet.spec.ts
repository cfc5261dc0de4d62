import { expect, test, type Page } from "@playwright/test";
import { base64, createBase58check } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";
import { hex } from "@scure/base";
import { privateKeyToAccount } from "viem/accounts";
import { parseSiweMessage } from "viem/siwe";
import { addressOfPrivateKey } from "../../worker/domain/identity/bip137";
import { hydrated, keepShot, open, signOut, words } from "./helpers";

const en_auth = words("en", "auth");
const en_me = words("en", "me");
const en_common = words("en", "common");
const en_errors = words("en", "errors");

/** A fixed test key: the e2e server starts from empty state, so its account is new each run. */
const TEST_KEY = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";
const wallet = privateKeyToAccount(TEST_KEY);

/**
 * A browser wallet for the page: an EIP-1193 provider announced by EIP-6963 that signs with
 * the test key through a function exposed from Node (viem), as an extension would. Like
 * MetaMask it answers its address in lower case; the messages it signed are in `signed`.
 */
async function injectWallet(page: Page, opts: { reject?: string; names?: string[] } = {}) {
  const signed: string[] = [];
  await page.exposeFunction("__e2eSign", (message: string) => {
    signed.push(message);
    return wallet.signMessage({ message });
  });
  await page.addInitScript(
    ({ address, reject, names }) => {
      const provider = {
        async request({ method, params }: { method: string; params?: unknown[] }) {
          if (method === "eth_requestAccounts" || method === "eth_accounts") {
            if (reject) throw Object.assign(new Error(reject), { code: 4001 });
            return [address];
          }
          if (method === "personal_sign") {
            const hex = String(params?.[0]).slice(2);
            const bytes = new Uint8Array(hex.match(/../g)!.map((b) => parseInt(b, 16)));
            return (window as unknown as { __e2eSign(m: string): Promise<string> }).__e2eSign(new TextDecoder().decode(bytes));
          }
          throw new Error(`unsupported ${method}`);
        },
      };
      const details = names.map((name, i) => Object.freeze({ info: { uuid: `e2e-wallet-${i}`, name, icon: "", rdns: `org.example.e2e${i}` }, provider }));
      const announce = () => details.forEach((detail) => window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail })));
      window.addEventListener("eip6963:requestProvider", announce);
      announce();
    },
    { address: wallet.address.toLowerCase(), reject: opts.reject ?? "", names: opts.names ?? ["E2E Wallet"] },
  );
  return signed;
}

/** A device key an older version kept in clear (decision 058): hex in localStorage. */
const LEGACY_DEVICE_KEY = "1e99423a4ed27608a15a2616a2b0e9e52ced330ac530edcc32c8ffc6a526aedd";
const OTHER_LEGACY_DEVICE_KEY = "0c28fca386c7a227600b2fe50b7cae11ec86d3bf1fbe471be89827e19d72aa1d";
const wifOf = (secret: Uint8Array) => createBase58check(sha256).encode(Uint8Array.from([0x80, ...secret, 0x01]));

type StoredEverything = {
  local: Record<string, string>;
  databases: { db: string; store: string; ids: unknown[]; records: unknown }[];
  keys: { extractable: boolean; exported: boolean; algorithm: string; usages: string[] }[];
};

/**
 * Everything this origin keeps in localStorage and IndexedDB, read in the page: bytes as hex,
 * each CryptoKey described with whether the page can export it (never its material).
 */
function storedEverything(page: Page): Promise<StoredEverything> {
  return page.evaluate(async () => {
    const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    const keys: StoredEverything["keys"] = [];
    const plain = async (v: unknown): Promise<unknown> => {
      if (v instanceof CryptoKey) {
        const exported = await crypto.subtle.exportKey("raw", v).then(() => true, () => false);
        keys.push({ extractable: v.extractable, exported, algorithm: v.algorithm.name, usages: [...v.usages].sort() });
        return "[CryptoKey]";
      }
      if (v instanceof ArrayBuffer) return `hex:${toHex(new Uint8Array(v))}`;
      if (ArrayBuffer.isView(v)) return `hex:${toHex(new Uint8Array(v.buffer, v.byteOffset, v.byteLength))}`;
      if (Array.isArray(v)) return Promise.all(v.map(plain));
      if (v && typeof v === "object") return Object.fromEntries(await Promise.all(Object.entries(v).map(async ([k, x]) => [k, await plain(x)])));
      return v;
    };
    const databases: StoredEverything["databases"] = [];
    for (const { name } of await indexedDB.databases()) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const req = indexedDB.open(name!);
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
      for (const store of Array.from(db.objectStoreNames)) {
        const [records, ids] = await new Promise<[unknown[], IDBValidKey[]]>((resolve, reject) => {
          const tx = db.transaction(store);
          const all = tx.objectStore(store).getAll();
          const allIds = tx.objectStore(store).getAllKeys();
          tx.oncomplete = () => resolve([all.result, allIds.result]);
          tx.onerror = () => reject(tx.error);
        });
        databases.push({ db: name!, store, ids, records: await plain(records) });
      }
      db.close();
    }
    return { local: { ...localStorage }, databases, keys };
  });
}

/** No form of the secret is kept: its bytes (shown as hex), hex, base64 or WIF; only sealed keys the page cannot export. */
function expectSealed(stored: StoredEverything, secret: Uint8Array, wif: string) {
  const text = JSON.stringify(stored);
  expect(text.toLowerCase()).not.toContain(hex.encode(secret));
  expect(text).not.toContain(base64.encode(secret));
  expect(text).not.toContain(wif);
  expect(stored.databases.flatMap((d) => d.ids)).toContain("btc");
  expect(stored.keys.length).toBeGreaterThan(0);
  for (const key of stored.keys) expect(key).toEqual({ extractable: false, exported: false, algorithm: "AES-GCM", usages: ["decrypt", "encrypt"] });
}

async function exportedKey(page: Page) {
  await page.getByRole("button", { name: en_auth.device_key_export }).click();
  await expect(page.getByRole("alertdialog")).toContainText(en_auth.device_key_export_confirm);
  await page.getByRole("button", { name: en_common.confirm }).click();
  const wif = (await page.getByTestId("device-wif").textContent())!;
  const payload = createBase58check(sha256).decode(wif);
  expect([payload[0], payload.length, payload[33]]).toEqual([0x80, 34, 0x01]);
  return { wif, secret: payload.slice(1, 33) };
}

/** The me tab's account name; a 42-character address must not widen the page past the phone. */
async function accountName(page: Page) {
  await open(page, "/pages/me/index");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  return page.getByTestId("account-name").textContent();
}

test("a browser wallet signs in with Sign-In with Ethereum, again into the same account, then sets a password", async ({ page }) => {
  const signed = await injectWallet(page);
  await open(page, "/pages/user/login");
  await keepShot(page, { path: "tests/.reports/password-login-390x844.png" });
  await page.getByRole("link", { name: en_auth.go_wallet_login }).click();
  await expect(page).toHaveURL(/\/pages\/user\/login2$/);
  await hydrated(page);
  const signIn = page.getByRole("button", { name: en_auth.wallet_use.replace("{{name}}", "E2E Wallet") });
  await expect(signIn).toBeVisible();
  await keepShot(page, { path: "tests/.reports/wallet-login-with-wallet-390x844.png" });

  await signIn.click();
  await expect(page).toHaveURL(/\/$/);
  // The page wrote the message with viem's builder: the lower-case address the wallet gave, checksummed (decision 110).
  expect(signed).toHaveLength(1);
  expect(signed[0].split("\n")[1]).toBe(wallet.address);
  expect(parseSiweMessage(signed[0])).toMatchObject({ domain: new URL(page.url()).host, address: wallet.address, chainId: 1, version: "1" });
  const address = wallet.address.toLowerCase();
  expect(await accountName(page)).toBe(address);

  await signOut(page);
  await open(page, "/pages/user/login2");
  await page.getByRole("button", { name: en_auth.wallet_use.replace("{{name}}", "E2E Wallet") }).click();
  await expect(page).toHaveURL(/\/$/);
  expect(await accountName(page)).toBe(address);

  // It came in without an invitation code: it names one once, and the form is gone afterwards.
  const inviter = page.getByTestId("inviter-form");
  await inviter.getByLabel(en_me.invited_by).fill("welcome");
  await keepShot(page, { path: "tests/.reports/wallet-set-inviter-390x844.png" });
  await inviter.getByRole("button", { name: en_me.inviter_save }).click();
  await expect(page.getByText(en_errors.inviter_saved)).toBeVisible();
  await expect(inviter).toHaveCount(0);

  // A wallet account has no password: it sets one without an old one, then signs in by password too.
  await page.getByRole("link", { name: en_me.pwd_set_title }).click();
  await expect(page).toHaveURL(/\/pages\/me\/sub\/modify-pwd$/);
  await expect(page.getByRole("heading", { name: en_me.pwd_set_title })).toBeVisible();
  await expect(page.getByLabel(en_me.old_password)).toHaveCount(0);
  await keepShot(page, { path: "tests/.reports/wallet-set-password-390x844.png" });
  await page.getByLabel(en_me.new_password, { exact: true }).fill("wallet123");
  await page.getByLabel(en_me.confirm_new_password).fill("wallet123");
  await page.getByRole("button", { name: en_me.pwd_set_submit }).click();
  // Success goes back to where the user came from.
  await expect(page).toHaveURL(/\/pages\/me\/index$/);
  await signOut(page);
  await page.getByLabel(en_auth.account).fill(address);
  await page.getByLabel(en_auth.password, { exact: true }).fill("wallet123");
  await page.getByRole("button", { name: en_auth.login_submit }).click();
  await expect(page).toHaveURL(/\/$/);
});

test("a wallet that refuses its address shows why", async ({ page }) => {
  await injectWallet(page, { reject: "User rejected the request." });
  await open(page, "/pages/user/login2");
  await page.getByRole("button", { name: en_auth.wallet_use.replace("{{name}}", "E2E Wallet") }).click();
  await expect(page.getByRole("status")).toHaveText(en_auth.toast_eth_failed.replace("{{error}}", "User rejected the request."));
  await expect(page).toHaveURL(/\/pages\/user\/login2$/);
});

test("without a wallet, a key made on this device signs in, and signs in again from storage", async ({ page }) => {
  await open(page, "/pages/user/login2");
  await expect(page.getByRole("status")).toHaveText(en_auth.toast_metamask_missing);
  await expect(page.getByRole("note")).toHaveText(en_auth.device_key_warning);
  const address = (await page.getByTestId("device-address").textContent())!;
  expect(address).toMatch(/^bc1q[02-9ac-hj-np-z]{38}$/);
  await keepShot(page, { path: "tests/.reports/wallet-login-390x844.png" });

  await page.getByRole("button", { name: en_auth.device_key_use }).click();
  await expect(page).toHaveURL(/\/$/);
  expect(await accountName(page)).toBe(address);

  await signOut(page);
  await open(page, "/pages/user/login2");
  await expect(page.getByTestId("device-address")).toHaveText(address);
  await page.getByRole("button", { name: en_auth.device_key_use }).click();
  await expect(page).toHaveURL(/\/$/);
  expect(await accountName(page)).toBe(address);

  // The export sits behind a confirmation, and what it shows is this address's key.
  await signOut(page);
  await open(page, "/pages/user/login2");
  const { wif, secret } = await exportedKey(page);
  expect(addressOfPrivateKey(secret)).toBe(address);
  // Storage holds it only sealed, under an AES-GCM key the page cannot export (decision 111).
  expectSealed(await storedEverything(page), secret, wif);
});

test("a device key an older version kept in clear is sealed on first use, the clear copy removed, and still signs in", async ({ page }) => {
  const secret = hex.decode(LEGACY_DEVICE_KEY);
  const address = addressOfPrivateKey(secret);
  await open(page, "/pages/user/login");
  await page.evaluate((key) => localStorage.setItem("pl_device_btc_key", key), LEGACY_DEVICE_KEY);
  expect((await storedEverything(page)).local.pl_device_btc_key).toBe(LEGACY_DEVICE_KEY);

  await open(page, "/pages/user/login2");
  await expect(page.getByTestId("device-address")).toHaveText(address);
  const stored = await storedEverything(page);
  expect(stored.local).not.toHaveProperty("pl_device_btc_key");
  const { wif } = await exportedKey(page);
  expectSealed(stored, secret, wif);

  await page.getByRole("button", { name: en_auth.device_key_use }).click();
  await expect(page).toHaveURL(/\/$/);
  expect(await accountName(page)).toBe(address);
  expectSealed(await storedEverything(page), secret, wif);

  // A different clear key beside the sealed one (a tab still on the older version made it) is
  // sealed too, under its own name; the device key stays the one that signed in.
  const other = hex.decode(OTHER_LEGACY_DEVICE_KEY);
  await page.evaluate((key) => localStorage.setItem("pl_device_btc_key", key), OTHER_LEGACY_DEVICE_KEY);
  await signOut(page);
  await open(page, "/pages/user/login2");
  await expect(page.getByTestId("device-address")).toHaveText(address);
  const both = await storedEverything(page);
  expect(both.local).not.toHaveProperty("pl_device_btc_key");
  expect(both.databases.flatMap((d) => d.ids)).toEqual(["archived:" + addressOfPrivateKey(other), "btc"]);
  expect(both.keys).toHaveLength(2);
  expectSealed(both, other, wifOf(other));
  expectSealed(both, secret, wif);
});

test("several wallets without MetaMask: the page says so and lets the user pick", async ({ page }) => {
  await injectWallet(page, { names: ["Wallet A", "Wallet B"] });
  await open(page, "/pages/user/login2");
  await expect(page.getByRole("status")).toHaveText(en_auth.toast_metamask_not_selected);
  await expect(page.getByText(en_auth.wallet_choose)).toBeVisible();
  await page.getByRole("button", { name: en_auth.wallet_use.replace("{{name}}", "Wallet B") }).click();
  await expect(page).toHaveURL(/\/$/);
});

test("a browser that keeps nothing: no wallet and no device key, each failure said", async ({ page }) => {
  await page.addInitScript(() => {
    IDBFactory.prototype.open = () => {
      throw new Error("QuotaExceededError");
    };
  });
  await open(page, "/pages/user/login2");
  await expect(page.getByRole("status")).toHaveText(en_auth.toast_both_failed);
  await expect(page.getByTestId("device-address")).toHaveCount(0);
  await page.getByRole("button", { name: en_auth.device_key_use }).click();
  await expect(page.getByRole("status")).toHaveText(en_auth.toast_btc_failed.replace("{{error}}", "QuotaExceededError"));
  await expect(page).toHaveURL(/\/pages\/user\/login2$/);
});
