import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { two_factor, two_factor_recovery_codes, users } from "../../worker/db/schema";
import { beginSetup, legacyRecoveryCodeHash, stepAt, totpCode } from "../../worker/domain/identity/two-factor";
import { sha256 } from "@noble/hashes/sha2.js";
import { hex } from "@scure/base";
import { THROTTLE } from "../../worker/domain/identity/throttle";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { addressOfPrivateKey, signBip137 } from "../../worker/domain/identity/bip137";
import { challengeText } from "../../worker/domain/identity/wallet-challenge";
import { call, db, newUser, seed, uniqueIPv4 } from "./helpers";
import { CARD, fundedUser, openBindings, rkey, TRC20 } from "./money/helpers";

beforeAll(() => seed());

/**
 * Codes of three steps in a row (one back, now, one ahead), each usable once: a fresh step is
 * waited for near a step's end, so the first stays inside the one-step drift until used.
 */
async function codeSource(secret: string) {
  const left_ms = 30_000 - (Date.now() % 30_000);
  if (left_ms < 6_000) await new Promise((r) => setTimeout(r, left_ms + 50));
  let step = stepAt(Date.now()) - 1;
  return () => totpCode(secret, step++);
}

type User2fa = Awaited<ReturnType<typeof newUser>> & { secret: string; next: () => string; recovery: string[] };

async function userWith2fa(u?: Awaited<ReturnType<typeof newUser>>): Promise<User2fa> {
  const user = u ?? (await newUser());
  const setup = await call("/api/user/2fa/setup", {}, { token: user.token });
  expect(setup.code).toBe(1);
  const next = await codeSource(setup.data.secret);
  const enabled = await call("/api/user/2fa/enable", { code: next(), password: user.password }, { token: user.token });
  expect(enabled.code).toBe(1);
  return { ...user, secret: setup.data.secret, next, recovery: enabled.data.recovery_codes };
}

const login = (u: { account: string; password: string }, code?: string) => call("/api/user/login", { account: u.account, password: u.password, ...(code === undefined ? {} : { code }) });

describe("setup and enable", () => {
  it("setup gives a pending key that changes nothing until a code from it enables it", async () => {
    const u = await newUser();
    const setup = await call("/api/user/2fa/setup", {}, { token: u.token });
    expect(setup.data.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.data.otpauth_url).toContain(`secret=${setup.data.secret}`);
    expect((await login(u)).data.userinfo.token).toBeTruthy();
    expect((await call("/api/user/2fa/enable", { code: "000000", password: u.password }, { token: u.token })).data.error).toBe("two_factor_code_wrong");
    const info = await call("/api/user/user", {}, { token: u.token });
    expect(info.data.two_factor).toBe(false);
  });

  it("enabling answers ten recovery codes once, stores only hashes, and never answers the key again", async () => {
    const u = await userWith2fa();
    expect(u.recovery).toHaveLength(10);
    const stored = await db.select().from(two_factor_recovery_codes).where(eq(two_factor_recovery_codes.user_id, u.id));
    expect(stored).toHaveLength(10);
    for (const row of stored) expect(u.recovery).not.toContain(row.code_hash);
    // The key at rest is sealed with the card key: the row does not hold it in the clear.
    const key = await db.query.two_factor.findFirst({ where: eq(two_factor.user_id, u.id) });
    expect(key!.secret).toMatch(/^v1\./);
    expect(key!.secret).not.toContain(u.secret);
    const again = await call("/api/user/2fa/setup", {}, { token: u.token });
    expect(again.data.error).toBe("two_factor_already_on");
    expect(JSON.stringify(again)).not.toContain(u.secret);
    expect((await call("/api/user/2fa/status", {}, { token: u.token })).data).toEqual({ enabled: true, recovery_codes_left: 10 });
    expect((await call("/api/user/user", {}, { token: u.token })).data.two_factor).toBe(true);
  });

  it("enable without a setup, or without a code, is a localized refusal", async () => {
    const u = await newUser();
    expect((await call("/api/user/2fa/enable", { code: "123456" }, { token: u.token })).data.error).toBe("two_factor_not_set_up");
    const blank = await call("/api/user/2fa/enable", {}, { token: u.token, headers: { "accept-language": "th" } });
    expect(blank.status).toBe(200);
    expect(blank.data.error).toBe("incomplete");
    expect((await call("/api/user/2fa/setup", {})).status).toBe(401);
  });
});

describe("turning two-factor on needs the login password (decision 116)", () => {
  it("without the password, or with a wrong one, a right code does not turn it on", async () => {
    const u = await newUser();
    const setup = await call("/api/user/2fa/setup", {}, { token: u.token });
    const next = await codeSource(setup.data.secret);
    const none = await call("/api/user/2fa/enable", { code: next() }, { token: u.token, headers: { "accept-language": "th" } });
    expect(none.data.error).toBe("password_wrong");
    expect(none.msg).not.toBe("The login password is incorrect.");
    const wrong = await call("/api/user/2fa/enable", { code: next(), password: "wrong1234" }, { token: u.token });
    expect(wrong.data.error).toBe("password_wrong");
    expect(wrong.msg).toBe("The login password is incorrect.");
    expect((await call("/api/user/2fa/status", {}, { token: u.token })).data.enabled).toBe(false);
    expect((await login(u)).data.userinfo.token).toBeTruthy();
    // The refused attempts did not spend the code: with the password it turns on.
    expect((await call("/api/user/2fa/enable", { code: next(), password: u.password }, { token: u.token })).code).toBe(1);
  });

  it(`wrong passwords count in the account's throttle: after ${THROTTLE.max_failures}, even the right one waits`, async () => {
    const u = await newUser();
    const setup = await call("/api/user/2fa/setup", {}, { token: u.token });
    const next = await codeSource(setup.data.secret);
    for (let i = 0; i < THROTTLE.max_failures; i++) expect((await call("/api/user/2fa/enable", { code: "000000", password: `wrong${i}pass` }, { token: u.token })).data.error).toBe("password_wrong");
    const locked = await call("/api/user/2fa/enable", { code: next(), password: u.password }, { token: u.token });
    expect(locked.status).toBe(429);
    expect(locked.data.error).toBe("login_throttled");
    expect(locked.data.retry_after_ms).toBeGreaterThan(0);
  });

  it("counts in the network's sign-in limiter", async () => {
    const u = await newUser();
    const ip = { "cf-connecting-ip": uniqueIPv4() };
    for (let i = 0; i < 30; i++) await call("/api/user/login", {}, { headers: ip });
    const refused = await call("/api/user/2fa/enable", { code: "123456", password: u.password }, { token: u.token, headers: ip });
    expect(refused.status).toBe(429);
    expect(refused.data.error).toBe("too_many_attempts");
  });

  it("recovery codes are stored under the deployment's key, not as the SHA-256 of the code", async () => {
    const u = await userWith2fa();
    const stored = (await db.select().from(two_factor_recovery_codes).where(eq(two_factor_recovery_codes.user_id, u.id))).map((r) => r.code_hash);
    expect(stored).toHaveLength(10);
    const plain = u.recovery.map((c) => hex.encode(sha256(new TextEncoder().encode(c.replace("-", "")))));
    for (const row of stored) {
      expect(row).toMatch(/^v1:/);
      expect(plain).not.toContain(row);
      expect(plain.some((p) => row.includes(p))).toBe(false);
    }
    // And they work, once each.
    expect((await login(u, u.recovery[5])).code).toBe(1);
    expect((await login(u, u.recovery[5])).data.error).toBe("login_failed");
  });

  it("a recovery code stored the old way (plain SHA-256) still works, once", async () => {
    const u = await userWith2fa();
    const old = "abcde-fghjk";
    await db.insert(two_factor_recovery_codes).values({ user_id: u.id, code_hash: legacyRecoveryCodeHash(old), created_at_ms: Date.now() - 86_400_000 });
    expect((await login(u, "ABCDE FGHJK")).code).toBe(1);
    expect((await login(u, old)).data.error).toBe("login_failed");
  });

  it("a deployment without its card key offers no new two-factor", async () => {
    const u = await newUser();
    const user = (await db.query.users.findFirst({ where: eq(users.id, u.id) }))!;
    expect(await beginSetup(db, null, user, Date.now())).toEqual({ status: "unavailable" });
  });
});

describe("sign-in with two-factor on", () => {
  it("a right password without a code answers need_2fa and no token", async () => {
    const u = await userWith2fa();
    const r = await login(u);
    expect(r.code).toBe(0);
    expect(r.data).toEqual({ error: "two_factor_needed", need_2fa: true });
    expect(JSON.stringify(r)).not.toMatch(/token/);
  });

  it("a wrong password still says only that, code or not", async () => {
    const u = await userWith2fa();
    expect((await call("/api/user/login", { account: u.account, password: "wrong1234" })).data.error).toBe("login_failed");
    expect((await call("/api/user/login", { account: u.account, password: "wrong1234", code: u.next() })).data.error).toBe("login_failed");
  });

  it("a valid code gives the usual token; the same code again is refused", async () => {
    const u = await userWith2fa();
    const code = u.next();
    const ok = await login(u, code);
    expect(ok.code).toBe(1);
    expect(ok.data.userinfo.two_factor).toBe(true);
    expect((await call("/api/user/user", {}, { token: ok.data.userinfo.token })).code).toBe(1);
    expect((await login(u, code)).data.error).toBe("login_failed");
  });

  it("two sign-ins racing with one code: one token", async () => {
    const u = await userWith2fa();
    const code = u.next();
    const answers = await Promise.all([login(u, code), login(u, code), login(u, code)]);
    expect(answers.filter((a) => a.code === 1)).toHaveLength(1);
  });

  it("an unused recovery code signs in once", async () => {
    const u = await userWith2fa();
    const [first] = u.recovery;
    expect((await login(u, first.toUpperCase())).code).toBe(1);
    expect((await login(u, first)).data.error).toBe("login_failed");
    expect((await call("/api/user/2fa/status", {}, { token: u.token })).data.recovery_codes_left).toBe(9);
  });

  it(`wrong codes count in the password throttle: ${THROTTLE.max_failures} of them lock even a right code out`, async () => {
    const u = await userWith2fa();
    for (let i = 0; i < THROTTLE.max_failures; i++) expect((await login(u, "000000")).data.error).toBe("login_failed");
    const locked = await login(u, u.next());
    expect(locked.status).toBe(429);
    expect(locked.data.error).toBe("login_throttled");
  });

  it("a right password cannot reset the count of wrong codes", async () => {
    const u = await userWith2fa();
    for (let i = 0; i < THROTTLE.max_failures - 1; i++) {
      await login(u);
      await login(u, "000000");
    }
    expect((await login(u, u.next())).status).toBe(429);
  });
});

describe("money out and the password with two-factor on", () => {
  it("add_wallet and add_bank refuse without a code and take one", async () => {
    const u = await userWith2fa();
    const wallet = { chain: "TRC20", address: TRC20[0], password: u.password };
    expect((await call("/api/user/add_wallet", wallet, { token: u.token })).data.error).toBe("two_factor_code_required");
    expect((await call("/api/user/add_wallet", { ...wallet, code: "000000" }, { token: u.token })).data.error).toBe("two_factor_code_wrong");
    expect((await call("/api/user/add_wallet", { ...wallet, code: u.next() }, { token: u.token })).code).toBe(1);
    const card = { name: "Ann Lee", bank: "Demo Bank", card_number: CARD, password: u.password };
    expect((await call("/api/user/add_bank", card, { token: u.token })).data.error).toBe("two_factor_code_required");
    expect((await call("/api/user/add_bank", { ...card, code: u.recovery[0] }, { token: u.token })).code).toBe(1);
  });

  it("withdraw refuses without a code and takes one", async () => {
    const u = await userWith2fa(await fundedUser("300"));
    const wallet = await call("/api/user/add_wallet", { chain: "TRC20", address: TRC20[1], password: u.password, code: u.next() }, { token: u.token });
    await openBindings(u.token); // past the new address's waiting period (decision 077)
    const w = { amount: "100", wallet_id: wallet.data.id, password: u.password };
    const refused = await call("/api/user/withdraw", w, { token: u.token, headers: { "idempotency-key": rkey(), "accept-language": "th" } });
    expect(refused.data.error).toBe("two_factor_code_required");
    expect(refused.msg).not.toBe((await call("/api/user/withdraw", w, { token: u.token })).msg);
    const paid = await call("/api/user/withdraw", { ...w, code: u.next() }, { token: u.token, headers: { "idempotency-key": rkey() } });
    expect(paid.code).toBe(1);
  });

  it("the password change refuses without a code and takes one", async () => {
    const u = await userWith2fa();
    const change = { old_password: u.password, new_password: "newpass456" };
    expect((await call("/api/user/reset_login_pwd", change, { token: u.token })).data.error).toBe("two_factor_code_required");
    expect((await call("/api/user/reset_login_pwd", { ...change, code: u.next() }, { token: u.token })).code).toBe(1);
    expect((await login({ account: u.account, password: "newpass456" }, u.next())).code).toBe(1);
  });

  it("without two-factor nothing asks for a code", async () => {
    const u = await newUser();
    expect((await call("/api/user/add_wallet", { chain: "TRC20", address: TRC20[0], password: u.password }, { token: u.token })).code).toBe(1);
  });
});

describe("disable", () => {
  it("needs the password and a code; afterwards sign-in needs no code", async () => {
    const u = await userWith2fa();
    expect((await call("/api/user/2fa/disable", { code: u.next(), password: "wrong1234" }, { token: u.token })).data.error).toBe("password_wrong");
    expect((await call("/api/user/2fa/disable", { password: u.password }, { token: u.token })).data.error).toBe("two_factor_code_required");
    expect((await call("/api/user/2fa/disable", { code: u.next(), password: u.password }, { token: u.token })).code).toBe(1);
    expect(await db.query.two_factor.findFirst({ where: eq(two_factor.user_id, u.id) })).toBeUndefined();
    expect(await db.select().from(two_factor_recovery_codes).where(eq(two_factor_recovery_codes.user_id, u.id))).toHaveLength(0);
    expect((await login(u)).data.userinfo.token).toBeTruthy();
    expect((await call("/api/user/2fa/disable", { code: "123456", password: u.password }, { token: u.token })).data.error).toBe("two_factor_not_on");
  });

  it("takes a recovery code instead of the app's", async () => {
    const u = await userWith2fa();
    expect((await call("/api/user/2fa/disable", { code: u.recovery[3], password: u.password }, { token: u.token })).code).toBe(1);
  });
});

describe("wallet sign-in with two-factor on", () => {
  /** A device key's signed challenge over a fresh nonce, as the wallet page posts it. */
  async function signed(key: Uint8Array) {
    const address = addressOfPrivateKey(key);
    const nonce = (await call("/api/user/nonce", undefined, { method: "GET" })).data.nonce;
    const message = challengeText({ kind: "btc", domain: "localhost", address, uri: "http://localhost", nonce, issued_at_ms: Date.now(), statement: "Sign in to Proofline." });
    return { account: address, message, signature: signBip137(message, key), type: "btc" };
  }

  it("the signature alone answers need_2fa; the same signed challenge with a code signs in, once", async () => {
    const key = secp256k1.utils.randomSecretKey();
    const first = await call("/api/user/loginByAddr", await signed(key));
    const u = await userWith2fa({ account: first.data.userinfo.account, password: "", token: first.data.userinfo.token, id: first.data.userinfo.id });
    const body = await signed(key);
    const asked = await call("/api/user/loginByAddr", body);
    expect(asked.data).toEqual({ error: "two_factor_needed", need_2fa: true });
    expect((await call("/api/user/loginByAddr", { ...body, code: "000000" })).data.error).toBe("two_factor_code_wrong");
    const code = u.next();
    const ok = await call("/api/user/loginByAddr", { ...body, code });
    expect(ok.code).toBe(1);
    expect(ok.data.userinfo.two_factor).toBe(true);
    // The nonce is spent now: the same challenge does not sign in again, code or not.
    expect((await call("/api/user/loginByAddr", { ...body, code: u.next() })).data.error).toBe("wallet_challenge_expired");
    // Without a password of its own, the wallet account turns two-factor off with a code alone.
    expect((await call("/api/user/2fa/disable", { code: u.recovery[0] }, { token: u.token })).code).toBe(1);
  });
});
