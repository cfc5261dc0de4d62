import { secp256k1 } from "@noble/curves/secp256k1.js";
import { and, eq } from "drizzle-orm";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { beforeAll, describe, expect, it } from "vitest";
import { sessions, users, wallet_nonces } from "../../../worker/db/schema";
import { addressOfPrivateKey, signBip137 } from "../../../worker/domain/identity/bip137";
import { confirmUserProofs } from "../../../worker/domain/identity/two-factor";
import { THROTTLE } from "../../../worker/domain/identity/throttle";
import { CHALLENGE_TTL_MS, challengeText, type ChallengeFields, type WalletKind } from "../../../worker/domain/identity/wallet-challenge";
import { createApi } from "../../../worker/api/app";
import { DEMO_GRANT_MICRO } from "../../../worker/domain/ledger/demo";
import { call, db, seed, testEnv, uniqueIPv4 } from "../helpers";

beforeAll(() => seed());

/** The test requests reach the app as http://localhost, so that is the domain a wallet signs for. */
const DOMAIN = "localhost";
const ORIGIN = "http://localhost";

type Signer = { kind: WalletKind; address: string; sign(message: string): Promise<string> };

function ethSigner(): Signer {
  const account = privateKeyToAccount(generatePrivateKey());
  return { kind: "eth", address: account.address, sign: (message) => account.signMessage({ message }) };
}

function btcSigner(): Signer {
  const key = secp256k1.utils.randomSecretKey();
  return { kind: "btc", address: addressOfPrivateKey(key), sign: async (message) => signBip137(message, key) };
}

async function newNonce(): Promise<string> {
  const r = await call("/api/user/nonce", undefined, { method: "GET" });
  expect(r.code).toBe(1);
  return r.data.nonce;
}

async function challenge(s: Signer, over: Partial<ChallengeFields> = {}) {
  const nonce = over.nonce ?? (await newNonce());
  return challengeText({ kind: s.kind, domain: DOMAIN, address: s.address, uri: ORIGIN, nonce, issued_at_ms: Date.now(), statement: "Sign in to Proofline.", ...over });
}

/** A signed sign-in request, as the wallet page posts it. */
async function signedBody(s: Signer, over: Partial<ChallengeFields> = {}) {
  const message = await challenge(s, over);
  return { account: s.address, message, signature: await s.sign(message), type: s.kind };
}

const login = (body: Record<string, unknown>, opts?: Parameters<typeof call>[2]) => call("/api/user/loginByAddr", body, opts);

async function sessionsOf(address: string) {
  const user = await db.query.users.findFirst({ where: eq(users.account, address.toLowerCase()) });
  if (!user) return 0;
  return (await db.select().from(sessions).where(and(eq(sessions.kind, "user"), eq(sessions.subject_id, user.id)))).length;
}

describe("GET /api/user/nonce", () => {
  it("answers a fresh 128-bit nonce each time, stored unused for five minutes", async () => {
    const before = Date.now();
    const [a, b] = [await newNonce(), await newNonce()];
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
    const row = await db.query.wallet_nonces.findFirst({ where: eq(wallet_nonces.nonce, a) });
    expect(row?.used_at_ms).toBeNull();
    expect(row!.expires_at_ms - before).toBeGreaterThanOrEqual(CHALLENGE_TTL_MS);
    expect(row!.expires_at_ms - before).toBeLessThan(CHALLENGE_TTL_MS + 5_000);
  });

  it("is limited per client address together with sign-in", async () => {
    const ip = { headers: { "cf-connecting-ip": uniqueIPv4() } };
    for (let i = 0; i < 30; i++) expect((await call("/api/user/nonce", undefined, { ...ip, method: "GET" })).code, `nonce ${i + 1}`).toBe(1);
    const refused = await call("/api/user/nonce", undefined, { ...ip, method: "GET" });
    expect(refused.status).toBe(429);
    expect(refused.data.error).toBe("too_many_attempts");
    expect((await call("/api/user/loginByAddr", {}, ip)).status).toBe(429);
  });
});

describe.each([
  ["Ethereum", ethSigner],
  ["Bitcoin device key", btcSigner],
] as const)("%s sign-in", (_name, makeSigner) => {
  it("creates the account on first use, answers userinfo with a working token, and finds it again", async () => {
    const s = makeSigner();
    const first = await login(await signedBody(s));
    expect(first.code).toBe(1);
    expect(first.msg).toBe("Login successful");
    const info = first.data.userinfo;
    expect(info.account).toBe(s.address.toLowerCase());
    expect(info.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(info.has_password).toBe(false);
    expect(info.invite_code).toMatch(/^[A-Z2-9]{8}$/);
    expect((await call("/api/user/user", {}, { token: info.token })).data.id).toBe(info.id);

    const again = await login(await signedBody(s));
    expect(again.code).toBe(1);
    expect(again.data.userinfo.id).toBe(info.id);
    expect(again.data.userinfo.token).not.toBe(info.token);
    expect(await db.select().from(users).where(eq(users.account, s.address.toLowerCase()))).toHaveLength(1);
  });

  it("refuses a message for another domain", async () => {
    const r = await login(await signedBody(makeSigner(), { domain: "evil.example" }));
    expect(r.data.error).toBe("wallet_message_invalid");
  });

  it("refuses a message for another URI", async () => {
    const r = await login(await signedBody(makeSigner(), { uri: "https://evil.example/login" }));
    expect(r.data.error).toBe("wallet_message_invalid");
  });

  it("refuses a message for another chain", async () => {
    const s = makeSigner();
    const message = (await challenge(s)).replace(/Chain ID: \d+/, "Chain ID: 5");
    const r = await login({ account: s.address, message, signature: await s.sign(message), type: s.kind });
    expect(r.data.error).toBe("wallet_message_invalid");
  });

  it("refuses an expired message, though its nonce is fresh", async () => {
    const s = makeSigner();
    const r = await login(await signedBody(s, { issued_at_ms: Date.now() - CHALLENGE_TTL_MS - 1_000 }));
    expect(r.data.error).toBe("wallet_challenge_expired");
    expect(r.msg).toBe("This sign-in request has expired or was already used. Please try again.");
    expect(await sessionsOf(s.address)).toBe(0);
  });

  it("refuses an expired nonce and one the server never issued", async () => {
    const s = makeSigner();
    const stale = `stale${Date.now()}`;
    await db.insert(wallet_nonces).values({ nonce: stale, created_at_ms: Date.now() - 10 * 60_000, expires_at_ms: Date.now() - 1 });
    expect((await login(await signedBody(s, { nonce: stale }))).data.error).toBe("wallet_challenge_expired");
    expect((await login(await signedBody(s, { nonce: "madeup12345678" }))).data.error).toBe("wallet_challenge_expired");
    expect(await sessionsOf(s.address)).toBe(0);
  });

  it("signs in once per nonce: the same signed message again is refused", async () => {
    const s = makeSigner();
    const body = await signedBody(s);
    expect((await login(body)).code).toBe(1);
    const replay = await login(body);
    expect(replay.code).toBe(0);
    expect(replay.data.error).toBe("wallet_challenge_expired");
    expect(await sessionsOf(s.address)).toBe(1);
  });

  it("refuses a message changed after signing, and leaves its nonce unspent", async () => {
    const s = makeSigner();
    const body = await signedBody(s);
    const tampered = body.message.replace(`URI: ${ORIGIN}`, `URI: ${ORIGIN}/other`);
    expect(tampered).not.toBe(body.message);
    expect((await login({ ...body, message: tampered })).data.error).toBe("wallet_signature_invalid");
    // A forged attempt does not burn the owner's challenge.
    expect((await login(body)).code).toBe(1);
  });

  it("refuses a signature made by another key over the same message", async () => {
    const s = makeSigner();
    const other = makeSigner();
    const message = await challenge(s);
    const r = await login({ account: s.address, message, signature: await other.sign(message), type: s.kind });
    expect(r.data.error).toBe("wallet_signature_invalid");
    expect(await db.query.users.findFirst({ where: eq(users.account, s.address.toLowerCase()) })).toBeUndefined();
  });

  it("never signs in an address alone", async () => {
    const s = makeSigner();
    const message = await challenge(s);
    const bare = [
      { account: s.address, type: s.kind },
      { account: s.address, message, type: s.kind },
      { account: s.address, message, signature: "", type: s.kind },
      { account: s.address, message, signature: s.kind === "eth" ? `0x${"00".repeat(65)}` : btoa("\x00".repeat(65)), type: s.kind },
      { account: s.address, message, signature: "not a signature", type: s.kind },
    ];
    for (const body of bare) {
      const r = await login(body);
      expect(r.code, JSON.stringify(body)).toBe(0);
      expect(r.status).toBeLessThan(500);
    }
    expect(await db.query.users.findFirst({ where: eq(users.account, s.address.toLowerCase()) })).toBeUndefined();
  });

  it("20 concurrent replays of one signed message give exactly one session", async () => {
    const s = makeSigner();
    const body = await signedBody(s);
    const results = await Promise.all(Array.from({ length: 20 }, () => login(body)));
    expect(results.filter((r) => r.code === 1)).toHaveLength(1);
    expect(results.every((r) => r.status < 500)).toBe(true);
    expect(await sessionsOf(s.address)).toBe(1);
    const nonce = /Nonce: (\w+)/.exec(body.message)![1];
    expect((await db.query.wallet_nonces.findFirst({ where: eq(wallet_nonces.nonce, nonce) }))?.used_at_ms).not.toBeNull();
  });

  it(`shares the password sign-in throttle: ${THROTTLE.max_failures} bad signatures lock the address`, async () => {
    const s = makeSigner();
    const other = makeSigner();
    for (let i = 0; i < THROTTLE.max_failures; i++) {
      const message = await challenge(s);
      expect((await login({ account: s.address, message, signature: await other.sign(message), type: s.kind })).data.error).toBe("wallet_signature_invalid");
    }
    const locked = await login(await signedBody(s));
    expect(locked.status).toBe(429);
    expect(locked.data.error).toBe("login_throttled");
  });
});

describe("Ethereum specifics", () => {
  /** A fixed test key: a viem local account signs as a browser wallet would. */
  const FIXED_KEY = "0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63";

  /** The page's message, built by viem's own SIWE builder: the address EIP-55 checksummed. */
  async function siweMessage(address: `0x${string}`) {
    const issuedAt = new Date();
    return createSiweMessage({
      domain: DOMAIN,
      address,
      statement: "Sign in to Proofline.",
      uri: ORIGIN,
      version: "1",
      chainId: 1,
      nonce: await newNonce(),
      issuedAt,
      expirationTime: new Date(issuedAt.getTime() + CHALLENGE_TTL_MS),
    });
  }

  it("signs in with a message built by createSiweMessage and signed by a viem local account", async () => {
    const account = privateKeyToAccount(FIXED_KEY);
    const message = await siweMessage(account.address);
    expect(message.split("\n")[1]).toBe(account.address);
    expect(message).toBe(await challenge({ ...ethSigner(), address: account.address }, { nonce: /Nonce: (\w+)/.exec(message)![1], issued_at_ms: Date.parse(/Issued At: (.+)/.exec(message)![1]) }));
    const r = await login({ account: account.address, message, signature: await account.signMessage({ message }), type: "eth" });
    expect(r.code).toBe(1);
    expect(r.data.userinfo.account).toBe(account.address.toLowerCase());
  });

  it("refuses a message whose address is all lower case (no EIP-55 checksum), signed or not, and leaves its nonce unspent", async () => {
    const s = ethSigner();
    const message = await siweMessage(s.address as `0x${string}`);
    const lower = message.replace(s.address, s.address.toLowerCase());
    expect(lower.split("\n")[1]).toBe(s.address.toLowerCase());
    const r = await login({ account: s.address.toLowerCase(), message: lower, signature: await s.sign(lower), type: "eth" });
    expect(r.code).toBe(0);
    expect(r.status).toBe(200);
    expect(r.data.error).toBe("wallet_address_not_checksummed");
    expect(r.msg).toBe("The address in this sign-in message is not written with its EIP-55 checksum. Please sign in again with your wallet.");
    expect(await sessionsOf(s.address)).toBe(0);
    const de = await login({ account: s.address, message: lower, signature: await s.sign(lower), type: "eth" }, { headers: { lang: "de" } });
    expect(de.msg).toBe("Die Adresse in dieser Anmeldenachricht ist nicht mit ihrer EIP-55-Prüfsumme geschrieben. Bitte melden Sie sich erneut mit Ihrer Wallet an.");
    // The same nonce in the checksummed message still signs in once.
    expect((await login({ account: s.address, message, signature: await s.sign(message), type: "eth" })).code).toBe(1);
  });

  it("refuses a message without an expiration time", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const message = createSiweMessage({ domain: DOMAIN, address: account.address, uri: ORIGIN, version: "1", chainId: 1, nonce: await newNonce(), issuedAt: new Date() });
    const r = await login({ account: account.address, message, signature: await account.signMessage({ message }), type: "eth" });
    expect(r.data.error).toBe("wallet_message_invalid");
  });

  it("refuses a message naming another address than the account", async () => {
    const s = ethSigner();
    const other = ethSigner();
    const body = await signedBody(s);
    expect((await login({ ...body, account: other.address })).data.error).toBe("wallet_message_invalid");
  });

  it("refuses a Bitcoin signature for an Ethereum account, and the reverse", async () => {
    const eth = await signedBody(ethSigner());
    expect((await login({ ...eth, type: "btc" })).code).toBe(0);
    const btc = await signedBody(btcSigner());
    expect((await login({ ...btc, type: "eth" })).code).toBe(0);
  });
});

describe("a wallet account and passwords", () => {
  async function walletUser() {
    const s = ethSigner();
    const r = await login(await signedBody(s));
    expect(r.code).toBe(1);
    return { account: r.data.userinfo.account as string, token: r.data.userinfo.token as string };
  }

  it("is stored without a password, and no password signs it in", async () => {
    const u = await walletUser();
    const row = await db.query.users.findFirst({ where: eq(users.account, u.account) });
    expect(row?.password_hash).toBe("");
    expect(row?.invited_with_code).toBe("");
    for (const password of ["", "secret123", "$argon2id$"]) {
      const r = await call("/api/user/login", { account: u.account, password });
      expect(r.code).toBe(0);
    }
    const wrong = await call("/api/user/login", { account: u.account, password: "secret123" });
    expect(wrong.data.error).toBe("login_failed");
    // A money action's password confirmation fails the same way, even for an empty password.
    expect((await confirmUserProofs(db, null, row!, { password: "", code: "" }, Date.now())).status).toBe("password_wrong");
  });

  it("sets its first password without an old one; after that the old one is required, and password sign-in works", async () => {
    const u = await walletUser();
    const set = await call("/api/user/reset_login_pwd", { new_password: "wallet123" }, { token: u.token });
    expect(set.code).toBe(1);
    expect((await call("/api/user/user", {}, { token: u.token })).data.has_password).toBe(true);
    expect((await call("/api/user/login", { account: u.account, password: "wallet123" })).code).toBe(1);
    const again = await call("/api/user/reset_login_pwd", { new_password: "another123" }, { token: u.token });
    expect(again.data.error).toBe("old_password_wrong");
    expect((await call("/api/user/reset_login_pwd", { old_password: "wallet123", new_password: "another123" }, { token: u.token })).code).toBe(1);
  });

  it("a password account still needs its old password to change it", async () => {
    const account = `pw${Date.now().toString(36)}`;
    const reg = await call("/api/user/register", { account, password: "secret123", password_confirm: "secret123", invite_code: "WELCOME" });
    expect(reg.data.userinfo.has_password).toBe(true);
    const r = await call("/api/user/reset_login_pwd", { new_password: "newpass456" }, { token: reg.data.userinfo.token });
    expect(r.data.error).toBe("old_password_wrong");
  });
});

describe("bad input", () => {
  it.each([
    ["no body", undefined],
    ["an unknown type", { account: "0x0000000000000000000000000000000000000001", message: "m", signature: "s", type: "sol" }],
    ["numbers", { account: 1, message: 2, signature: 3, type: "eth" }],
    ["arrays", { account: ["a"], message: ["b"], signature: ["c"], type: ["eth"] }],
    ["an oversized message", { account: "0x0000000000000000000000000000000000000001", message: "x".repeat(5000), signature: "s", type: "eth" }],
    ["an account that is no address", { account: "alice", message: "m", signature: "0x00", type: "eth" }],
    ["a bech32 address of another kind", { account: "bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3", message: "m", signature: "s", type: "btc" }],
  ])("%s gets a localized refusal, never a 500", async (_name, body) => {
    const r = await call("/api/user/loginByAddr", body as Record<string, unknown> | undefined, { headers: { lang: "de" } });
    expect(r.status).toBeLessThan(500);
    expect(r.code).toBe(0);
    expect(r.msg).not.toMatch(/^errors\./);
    expect(r.msg).not.toBe("");
  });

  it("answers in the caller's language", async () => {
    const s = ethSigner();
    const r = await call("/api/user/loginByAddr", await signedBody(s, { domain: "evil.example" }), { headers: { lang: "ja" } });
    expect(r.msg).toBe("このサインインメッセージはこのサイトでは無効です。もう一度お試しください。");
  });
});

describe("a demo deployment", () => {
  it("grants the demo money to a wallet account at its first sign-in only", async () => {
    const demoEnv = { ...testEnv, APP_ENV: "demo", PRICE_FEED: undefined, PRICE_FEED_URL: undefined };
    const app = createApi();
    const s = btcSigner();
    const signIn = async () => {
      const res = await app.request("/api/user/loginByAddr", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(await signedBody(s)) }, demoEnv);
      return ((await res.json()) as { data: { userinfo: { balance_micro: number } } }).data.userinfo;
    };
    expect((await signIn()).balance_micro).toBe(DEMO_GRANT_MICRO);
    expect((await signIn()).balance_micro).toBe(DEMO_GRANT_MICRO);
  });
});
