import { argon2id } from "@noble/hashes/argon2.js";
import { base64urlnopad } from "@scure/base";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { login_throttle, operators, sessions, users } from "../../worker/db/schema";
import { createOperator } from "../../worker/domain/identity/operators";
import { KDF_PARAMS, verifyPassword } from "../../worker/domain/identity/password";
import { hashSessionToken } from "../../worker/domain/identity/session";
import { THROTTLE } from "../../worker/domain/identity/throttle";
import { call, db, newUser, seed, uniqueAccount, uniqueIPv4 } from "./helpers";

beforeAll(() => seed());

describe("register", () => {
  it("creates the user with a token, an own invitation code and the inviter", async () => {
    const inviter = await newUser();
    const account = uniqueAccount("inv");
    const me = await call("/api/user/user", {}, { token: inviter.token });
    const r = await call("/api/user/register", { account, password: "secret123", password_confirm: "secret123", invite_code: me.data.invite_code });
    expect(r.code).toBe(1);
    expect(r.data.userinfo.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(r.data.userinfo.invite_code).toMatch(/^[A-Z2-9]{8}$/);
    expect(r.data.userinfo.invite_code).not.toBe(me.data.invite_code);
    const row = await db.query.users.findFirst({ where: eq(users.account, account) });
    expect(row?.inviter_id).toBe(inviter.id);
    expect(row?.invited_with_code).toBe(me.data.invite_code);
    // The session is stored hashed, never as the token itself.
    const s = await db.query.sessions.findFirst({ where: eq(sessions.token_hash, hashSessionToken(r.data.userinfo.token)) });
    expect(s?.subject_id).toBe(row?.id);
    expect(await db.query.sessions.findFirst({ where: eq(sessions.token_hash, r.data.userinfo.token) })).toBeUndefined();
  });

  it("WELCOME registers without an inviter", async () => {
    const u = await newUser();
    const row = await db.query.users.findFirst({ where: eq(users.id, u.id) });
    expect(row?.inviter_id).toBeNull();
    expect(row?.invited_with_code).toBe("WELCOME");
  });

  it("the invitation code is case-insensitive", async () => {
    const r = await call("/api/user/register", { account: uniqueAccount(), password: "secret123", password_confirm: "secret123", invite_code: "welcome" });
    expect(r.code).toBe(1);
  });

  it("refuses a duplicate account, whatever its case", async () => {
    const u = await newUser();
    const r = await call("/api/user/register", { account: u.account.toUpperCase(), password: "secret123", password_confirm: "secret123", invite_code: "WELCOME" });
    expect(r.code).toBe(0);
    expect(r.msg).toBe("This account is already registered.");
  });

  it("refuses a mismatched confirmation", async () => {
    const r = await call("/api/user/register", { account: uniqueAccount(), password: "secret123", password_confirm: "secret124", invite_code: "WELCOME" });
    expect(r.code).toBe(0);
    expect(r.msg).toBe("The two passwords do not match.");
  });

  it("refuses an unknown invitation code", async () => {
    const r = await call("/api/user/register", { account: uniqueAccount(), password: "secret123", password_confirm: "secret123", invite_code: "NOPE1234" });
    expect(r.code).toBe(0);
    expect(r.msg).toBe("This invitation code does not exist.");
  });

  it.each(["ab", "1abcdef", "has space", "a".repeat(21), "semi;colon"])("refuses the account %j", async (account) => {
    const r = await call("/api/user/register", { account, password: "secret123", password_confirm: "secret123", invite_code: "WELCOME" });
    expect(r.code).toBe(0);
    expect(r.data.error).toBe("account_invalid");
  });

  it.each(["short1", "allletters", "12345678", "a1".repeat(33)])("refuses the password %j", async (password) => {
    const r = await call("/api/user/register", { account: uniqueAccount(), password, password_confirm: password, invite_code: "WELCOME" });
    expect(r.code).toBe(0);
    expect(r.data.error).toBe("password_invalid");
  });

  it("two registrations racing for one account create exactly one user", async () => {
    const account = uniqueAccount("race");
    const body = { account, password: "secret123", password_confirm: "secret123", invite_code: "WELCOME" };
    const results = await Promise.all([call("/api/user/register", body), call("/api/user/register", body), call("/api/user/register", body)]);
    expect(results.filter((r) => r.code === 1)).toHaveLength(1);
    expect(results.filter((r) => r.code === 0).every((r) => r.data.error === "account_taken")).toBe(true);
    expect(await db.select().from(users).where(eq(users.account, account))).toHaveLength(1);
  });
});

describe("login", () => {
  it("answers userinfo with a token that works", async () => {
    const u = await newUser();
    const r = await call("/api/user/login", { account: u.account, password: u.password });
    expect(r.code).toBe(1);
    const me = await call("/api/user/user", {}, { token: r.data.userinfo.token });
    expect(me.code).toBe(1);
    expect(me.data.account).toBe(u.account);
    expect(me.data).not.toHaveProperty("password_hash");
  });

  it("gives the same message for a wrong password and an unknown account", async () => {
    const u = await newUser();
    const wrong = await call("/api/user/login", { account: u.account, password: "wrong1234" });
    const unknown = await call("/api/user/login", { account: uniqueAccount("ghost"), password: "wrong1234" });
    expect(wrong.code).toBe(0);
    expect(unknown.code).toBe(0);
    expect(wrong.msg).toBe(unknown.msg);
    expect(wrong.data).toEqual(unknown.data);
  });

  it(`locks an account after ${THROTTLE.max_failures} failures, even for the right password`, async () => {
    const u = await newUser();
    for (let i = 0; i < THROTTLE.max_failures; i++) {
      expect((await call("/api/user/login", { account: u.account, password: "wrong1234" })).data.error).toBe("login_failed");
    }
    const locked = await call("/api/user/login", { account: u.account, password: u.password });
    expect(locked.status).toBe(429);
    expect(locked.code).toBe(0);
    expect(locked.data.error).toBe("login_throttled");
    expect(locked.msg).toMatch(/15 minutes/);
    // Another account is not affected.
    const other = await newUser();
    expect((await call("/api/user/login", { account: other.account, password: other.password })).code).toBe(1);
  });

  it("counts concurrent failures without losing any", async () => {
    const u = await newUser();
    await Promise.all(Array.from({ length: 4 }, () => call("/api/user/login", { account: u.account, password: "wrong1234" })));
    const row = await db.query.login_throttle.findFirst({ where: eq(login_throttle.key, `user:${u.account}`) });
    expect(row?.failures).toBe(4);
  });

  it("takes an attempt before hashing: 20 parallel guesses get at most 5 answers, then even the right password waits", async () => {
    const u = await newUser();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call("/api/user/login", { account: u.account, password: `wrong${i}abc` })));
    const failed = results.filter((r) => r.data.error === "login_failed");
    const throttled = results.filter((r) => r.status === 429);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.length).toBeLessThanOrEqual(THROTTLE.max_failures);
    expect(failed.length + throttled.length).toBe(20);
    expect(throttled.every((r) => r.data.error === "login_throttled")).toBe(true);
    const right = await call("/api/user/login", { account: u.account, password: u.password });
    expect(right.status).toBe(429);
    expect(right.data.retry_after_ms).toBeGreaterThan(THROTTLE.lock_ms - 60_000);
  });

  it("throttles unknown accounts too, so locking does not reveal existence", async () => {
    const ghost = uniqueAccount("ghost");
    for (let i = 0; i < THROTTLE.max_failures; i++) await call("/api/user/login", { account: ghost, password: "wrong1234" });
    expect((await call("/api/user/login", { account: ghost, password: "wrong1234" })).data.error).toBe("login_throttled");
  });

  it("the lock ends when its time is over, and a success clears the count", async () => {
    const u = await newUser();
    for (let i = 0; i < THROTTLE.max_failures; i++) await call("/api/user/login", { account: u.account, password: "wrong1234" });
    await db
      .update(login_throttle)
      .set({ locked_until_ms: Date.now() - 1, window_started_at_ms: Date.now() - THROTTLE.window_ms - 1 })
      .where(eq(login_throttle.key, `user:${u.account}`));
    expect((await call("/api/user/login", { account: u.account, password: u.password })).code).toBe(1);
    expect(await db.query.login_throttle.findFirst({ where: eq(login_throttle.key, `user:${u.account}`) })).toBeUndefined();
  });
});

/** A hash as earlier versions stored it: the PHC string with base64url (salt bytes 0xff force '_'). */
function base64urlHash(password: string): string {
  const salt = new Uint8Array(16).fill(0xff);
  const hash = argon2id(new TextEncoder().encode(password), salt, KDF_PARAMS);
  const { m, t, p } = KDF_PARAMS;
  return `$argon2id$v=19$m=${m},t=${t},p=${p}$${base64urlnopad.encode(salt)}$${base64urlnopad.encode(hash)}`;
}
const PHC = /^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

describe("hashes stored in the earlier base64url form", () => {
  it("still sign a user in, and are rewritten in standard base64 at that sign-in", async () => {
    const u = await newUser();
    const old = base64urlHash(u.password);
    await db.update(users).set({ password_hash: old }).where(eq(users.id, u.id));
    expect((await call("/api/user/login", { account: u.account, password: "wrong1234" })).code).toBe(0);
    expect((await db.query.users.findFirst({ where: eq(users.id, u.id) }))?.password_hash).toBe(old);

    expect((await call("/api/user/login", { account: u.account, password: u.password })).code).toBe(1);
    const upgraded = (await db.query.users.findFirst({ where: eq(users.id, u.id) }))!.password_hash;
    expect(upgraded).toMatch(PHC);
    expect(verifyPassword(u.password, upgraded)).toBe(true);
    expect((await call("/api/user/login", { account: u.account, password: u.password })).code).toBe(1);
    expect((await db.query.users.findFirst({ where: eq(users.id, u.id) }))?.password_hash).toBe(upgraded);
  });

  it("are rewritten for operators too", async () => {
    const account = uniqueAccount("op");
    const password = "Operator12345";
    const created = await createOperator(db, { account, password }, Date.now());
    if (created.status !== "ok") throw new Error(`createOperator: ${created.status}`);
    await db.update(operators).set({ password_hash: base64urlHash(password) }).where(eq(operators.id, created.operator.id));
    expect((await call("/api/admin/login", { account, password })).code).toBe(1);
    const upgraded = (await db.query.operators.findFirst({ where: eq(operators.id, created.operator.id) }))!.password_hash;
    expect(upgraded).toMatch(PHC);
    expect(verifyPassword(password, upgraded)).toBe(true);
  });
});

describe("sessions", () => {
  it("logout revokes the session", async () => {
    const u = await newUser();
    expect((await call("/api/user/logout", {}, { token: u.token })).code).toBe(1);
    const after = await call("/api/user/user", {}, { token: u.token });
    expect(after.status).toBe(401);
  });

  it("an idle session expires", async () => {
    const u = await newUser();
    await db.update(sessions).set({ last_seen_at_ms: Date.now() - 8 * 24 * 3600_000 }).where(eq(sessions.token_hash, hashSessionToken(u.token)));
    expect((await call("/api/user/user", {}, { token: u.token })).status).toBe(401);
  });

  it("a session past its absolute expiry is refused even when active", async () => {
    const u = await newUser();
    await db.update(sessions).set({ absolute_expires_at_ms: Date.now() - 1 }).where(eq(sessions.token_hash, hashSessionToken(u.token)));
    expect((await call("/api/user/user", {}, { token: u.token })).status).toBe(401);
  });

  it("use keeps an idle session alive", async () => {
    const u = await newUser();
    const old = Date.now() - 6 * 24 * 3600_000;
    await db.update(sessions).set({ last_seen_at_ms: old }).where(eq(sessions.token_hash, hashSessionToken(u.token)));
    expect((await call("/api/user/user", {}, { token: u.token })).code).toBe(1);
    const row = await db.query.sessions.findFirst({ where: eq(sessions.token_hash, hashSessionToken(u.token)) });
    expect(row!.last_seen_at_ms).toBeGreaterThan(old);
  });

  it("accepts Authorization: Bearer as well as the token header", async () => {
    const u = await newUser();
    expect((await call("/api/user/user", {}, { headers: { authorization: `Bearer ${u.token}` } })).code).toBe(1);
  });
});

describe("reset_login_pwd", () => {
  it("changes the password and revokes the other sessions only", async () => {
    const u = await newUser();
    const second = await call("/api/user/login", { account: u.account, password: u.password });
    const r = await call("/api/user/reset_login_pwd", { old_password: u.password, new_password: "newpass456" }, { token: u.token });
    expect(r.code).toBe(1);
    expect((await call("/api/user/user", {}, { token: u.token })).code).toBe(1);
    expect((await call("/api/user/user", {}, { token: second.data.userinfo.token })).status).toBe(401);
    expect((await call("/api/user/login", { account: u.account, password: u.password })).code).toBe(0);
    expect((await call("/api/user/login", { account: u.account, password: "newpass456" })).code).toBe(1);
  });

  it("refuses a wrong old password, a weak new one and an unchanged one", async () => {
    const u = await newUser();
    expect((await call("/api/user/reset_login_pwd", { old_password: "wrong1234", new_password: "newpass456" }, { token: u.token })).data.error).toBe("old_password_wrong");
    expect((await call("/api/user/reset_login_pwd", { old_password: u.password, new_password: "weak" }, { token: u.token })).data.error).toBe("password_invalid");
    expect((await call("/api/user/reset_login_pwd", { old_password: u.password, new_password: u.password }, { token: u.token })).data.error).toBe("password_same");
    expect((await call("/api/user/reset_login_pwd", { old_password: u.password, new_password: "newpass456", new_password_confirm: "other4567" }, { token: u.token })).data.error).toBe("password_mismatch");
  });

  it("needs a session", async () => {
    expect((await call("/api/user/reset_login_pwd", { old_password: "a", new_password: "b" })).status).toBe(401);
  });

  // Decision 113: a thief holding a session guesses the old password no faster than at sign-in.
  it(`${THROTTLE.max_failures} wrong old passwords lock the account: the right one is then refused with 429, and so is sign-in`, async () => {
    const u = await newUser();
    const change = (old_password: string) => call("/api/user/reset_login_pwd", { old_password, new_password: "newpass456" }, { token: u.token });
    for (let i = 0; i < THROTTLE.max_failures; i++) expect((await change(`wrong${i}pass`)).data.error, `guess ${i + 1}`).toBe("old_password_wrong");
    const refused = await change(u.password);
    expect(refused.status).toBe(429);
    expect(refused.data.error).toBe("login_throttled");
    expect(refused.data.retry_after_ms).toBeGreaterThan(THROTTLE.lock_ms - 60_000);
    expect(refused.msg).toBe("Too many failed attempts. Please try again in 15 minutes.");
    // One throttle: the sign-in form is locked as well, and the password did not change.
    expect((await call("/api/user/login", { account: u.account, password: u.password })).status).toBe(429);
    expect(verifyPassword(u.password, (await db.query.users.findFirst({ where: eq(users.id, u.id) }))!.password_hash)).toBe(true);
  });

  it("a right old password clears the count, as a right sign-in does", async () => {
    const u = await newUser();
    for (let i = 0; i < THROTTLE.max_failures - 1; i++) await call("/api/user/reset_login_pwd", { old_password: "wrong1234", new_password: "newpass456" }, { token: u.token });
    expect((await call("/api/user/reset_login_pwd", { old_password: u.password, new_password: "newpass456" }, { token: u.token })).code).toBe(1);
    for (let i = 0; i < THROTTLE.max_failures - 1; i++) await call("/api/user/login", { account: u.account, password: "wrong1234" });
    expect((await call("/api/user/login", { account: u.account, password: "newpass456" })).code).toBe(1);
  });

  it("counts in the network's sign-in limiter: 30 a minute from one address, then 429", async () => {
    const u = await newUser();
    const ip = { "cf-connecting-ip": uniqueIPv4() };
    for (let i = 0; i < 30; i++) {
      const path = i % 2 ? "/api/user/login" : "/api/user/reset_login_pwd";
      // Bad bodies answer at once and count all the same: the limit comes before any hashing.
      expect((await call(path, {}, { token: u.token, headers: ip })).status, `attempt ${i + 1}`).toBe(200);
    }
    const refused = await call("/api/user/reset_login_pwd", { old_password: u.password, new_password: "newpass456" }, { token: u.token, headers: ip });
    expect(refused.status).toBe(429);
    expect(refused.data).toMatchObject({ error: "too_many_attempts", retry_after_ms: 60_000 });
  });
});

describe("language", () => {
  it("stores the chosen language on the account", async () => {
    const u = await newUser();
    const r = await call("/api/user/lang", { value: "ty" }, { token: u.token });
    expect(r.code).toBe(1);
    expect(r.data).toEqual({ lang: "th", code: "ty" });
    expect((await call("/api/user/user", {}, { token: u.token })).data.lang).toBe("th");
    expect((await call("/api/user/lang", { value: "klingon" }, { token: u.token })).code).toBe(0);
  });
});

describe("attempts per client IP", () => {
  it("allows 30 sign-in or registration attempts a minute from one address, then answers 429", async () => {
    const from = (ip: string) => ({ headers: { "cf-connecting-ip": ip } });
    // Bad bodies are cheap to send, and count all the same: the limit comes before any work.
    const ip = uniqueIPv4();
    for (let i = 0; i < 30; i++) {
      const path = i % 2 ? "/api/user/login" : "/api/user/register";
      expect((await call(path, {}, from(ip))).data.error, `attempt ${i + 1}`).toBe("incomplete");
    }
    const refused = await call("/api/user/login", { account: "anyone", password: "whatever1" }, from(ip));
    expect(refused.status).toBe(429);
    expect(refused.data).toMatchObject({ error: "too_many_attempts", retry_after_ms: 60_000 });
    expect(refused.msg).toBe("Too many sign-in attempts from your network. Please try again in a minute.");
    expect((await call("/api/admin/login", {}, from(ip))).status).toBe(429);
    // Another address, and calls without one (the app called in-process by tools), are not held back.
    expect((await call("/api/user/login", {}, from("198.51.100.9"))).data.error).toBe("incomplete");
    expect((await call("/api/user/login", {})).data.error).toBe("incomplete");
    // Other endpoints are not limited.
    expect((await call("/api/health", undefined, { ...from(ip), method: "GET" })).code).toBe(1);
  });
});
