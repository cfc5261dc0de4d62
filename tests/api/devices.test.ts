import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { login_attempts, notifications, passkeys, sessions, webauthn_challenges } from "../../worker/db/schema";
import { hashSessionToken } from "../../worker/domain/identity/session";
import { call, db, newUser, seed } from "./helpers";
import { SoftwareAuthenticator } from "./software-authenticator";

beforeAll(() => seed());

const PHONE = { "user-agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36", "cf-connecting-ip": "203.0.113.77" };
const LAPTOP = { "user-agent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15", "cf-connecting-ip": "2001:db8:abcd:12::1" };

const login = (account: string, password: string, headers: Record<string, string> = PHONE) => call("/api/user/login", { account, password }, { headers });

async function signedInTwice() {
  const u = await newUser();
  const phone = await login(u.account, u.password, PHONE);
  const laptop = await login(u.account, u.password, LAPTOP);
  return { ...u, phone: phone.data.userinfo.token as string, laptop: laptop.data.userinfo.token as string };
}

const newSignIns = (user_id: number) => db.select().from(notifications).where(and(eq(notifications.user_id, user_id), eq(notifications.kind, "new_sign_in")));

describe("sessions", () => {
  it("lists live sessions with device, /24 or /48 network and an opaque id, marking the caller's", async () => {
    const u = await signedInTwice();
    const r = await call("/api/user/sessions", {}, { token: u.phone });
    expect(r.code).toBe(1);
    const list = r.data.list as { id: string; device: string; ip: string; current: boolean; created_at_ms: number; last_seen_at_ms: number }[];
    expect(list).toHaveLength(3);
    const phone = list.find((s) => s.current)!;
    expect(phone).toMatchObject({ device: "Chrome on Android", ip: "203.0.113.0/24" });
    expect(list.find((s) => s.device === "Safari on macOS")).toMatchObject({ ip: "2001:db8:abcd::/48", current: false });
    // The registration's session came without headers: the network is "local".
    expect(list.some((s) => s.ip === "local")).toBe(true);
    const hashes = (await db.select().from(sessions).where(eq(sessions.subject_id, u.id))).map((s) => s.token_hash);
    for (const s of list) {
      expect(s.id).toMatch(/^[A-Za-z0-9_-]{16}$/);
      expect(hashes.some((h) => h.includes(s.id))).toBe(false);
    }
  });

  it("a revoked session answers 401 on its very next request", async () => {
    const u = await signedInTwice();
    const list = (await call("/api/user/sessions", {}, { token: u.phone })).data.list as { id: string; device: string }[];
    const laptop = list.find((s) => s.device === "Safari on macOS")!;
    expect((await call("/api/user/user", {}, { token: u.laptop })).status).toBe(200);
    const r = await call("/api/user/sessions/revoke", { id: laptop.id }, { token: u.phone });
    expect(r.code).toBe(1);
    const next = await call("/api/user/user", {}, { token: u.laptop });
    expect(next.status).toBe(401);
    expect((await call("/api/user/user", {}, { token: u.phone })).code).toBe(1);
    // Ending it again, or an id that is not the caller's, is a localized refusal.
    expect((await call("/api/user/sessions/revoke", { id: laptop.id }, { token: u.phone })).data.error).toBe("session_unknown");
    const other = await signedInTwice();
    const theirs = (await call("/api/user/sessions", {}, { token: other.phone })).data.list[0].id;
    const refused = await call("/api/user/sessions/revoke", { id: theirs }, { token: u.phone, headers: { lang: "th" } });
    expect(refused).toMatchObject({ code: 0, data: { error: "session_unknown" } });
    expect(refused.msg).toMatch(/[\u0E00-\u0E7F]/);
    expect((await call("/api/user/user", {}, { token: other.phone })).code).toBe(1);
  });

  it("all_others ends every other session and keeps the caller's", async () => {
    const u = await signedInTwice();
    const r = await call("/api/user/sessions/revoke", { all_others: 1 }, { token: u.laptop });
    expect(r).toMatchObject({ code: 1, data: { ended: 2 } });
    expect((await call("/api/user/user", {}, { token: u.phone })).status).toBe(401);
    expect((await call("/api/user/user", {}, { token: u.token })).status).toBe(401);
    const list = (await call("/api/user/sessions", {}, { token: u.laptop })).data.list;
    expect(list).toHaveLength(1);
    expect(list[0].current).toBe(true);
  });

  it("bad input is a localized envelope error, never a 500", async () => {
    const u = await newUser();
    for (const body of [{}, { id: "" }, { all_others: 2 }, { id: ["x"] }]) {
      const r = await call("/api/user/sessions/revoke", body, { token: u.token });
      expect(r.status).toBeLessThan(500);
      expect(r.code).toBe(0);
    }
  });
});

describe("sign-in history", () => {
  it("shows failed and successful attempts, newest first, and keeps the last 50", async () => {
    const u = await newUser();
    await login(u.account, "wrong-password");
    await login(u.account, u.password);
    const list = (await call("/api/user/login_history", {}, { token: u.token })).data.list;
    expect(list.slice(0, 3).map((a: { ok: boolean }) => a.ok)).toEqual([true, false, true]);
    expect(list[0]).toMatchObject({ ok: true, method: "password", device: "Chrome on Android", ip: "203.0.113.0/24" });
    expect(list[0].at_ms).toBeGreaterThan(0);
    // The prune runs in every attempt's batch: 60 more attempts leave exactly 50 rows.
    for (let i = 0; i < 60; i++) {
      await db.batch([db.insert(login_attempts).values({ user_id: u.id, at_ms: i, ok: 0, method: "password", device: "", ip: "local" })]);
    }
    await login(u.account, u.password);
    const rows = await db.select().from(login_attempts).where(eq(login_attempts.user_id, u.id));
    expect(rows).toHaveLength(50);
    const history = (await call("/api/user/login_history", {}, { token: u.token })).data.list;
    expect(history).toHaveLength(50);
    expect(history[0].ok).toBe(true);
  });
});

describe("sign-in history of unknown accounts", () => {
  it("a wrong password for an account that does not exist is refused the same way and recorded nowhere", async () => {
    const before = (await db.select().from(login_attempts)).length;
    const r = await login("nobody-here-x1", "wrong-password");
    expect(r).toMatchObject({ code: 0, data: { error: "login_failed" } });
    expect((await db.select().from(login_attempts)).length).toBe(before);
  });
});

describe("new sign-in notification", () => {
  it("is not made for the first session, then once per new device and network", async () => {
    const u = await newUser();
    expect(await newSignIns(u.id)).toHaveLength(0);
    await login(u.account, u.password, PHONE);
    await login(u.account, u.password, PHONE);
    const after = await newSignIns(u.id);
    expect(after).toHaveLength(1);
    expect(JSON.parse(after[0].params_json)).toEqual({ device: "Chrome on Android", ip: "203.0.113.0/24" });
    await login(u.account, u.password, { ...PHONE, "cf-connecting-ip": "203.0.113.200" });
    expect(await newSignIns(u.id)).toHaveLength(1);
    await login(u.account, u.password, LAPTOP);
    expect(await newSignIns(u.id)).toHaveLength(2);
  });

  it("a failed attempt notifies nobody", async () => {
    const u = await newUser();
    await login(u.account, "wrong-password", LAPTOP);
    expect(await newSignIns(u.id)).toHaveLength(0);
  });
});

async function registerPasskey(token: string, name = "My phone") {
  const auth = await SoftwareAuthenticator.create();
  const opts = await call("/api/user/passkeys/register/options", { password: "secret123" }, { token });
  expect(opts.code).toBe(1);
  expect(opts.data.options.rp.id).toBe("localhost");
  expect(opts.data.options.authenticatorSelection).toMatchObject({ residentKey: "required", userVerification: "required" });
  const verify = await call("/api/user/passkeys/register/verify", { response: await auth.register(opts.data.options.challenge), name }, { token });
  expect(verify.code).toBe(1);
  return auth;
}

async function passkeySignIn(auth: SoftwareAuthenticator, opts: { id?: string; counter?: number; challenge?: string } = {}) {
  const challenge = opts.challenge ?? (await call("/api/user/passkey_login/options", {})).data.options.challenge;
  return call("/api/user/passkey_login/verify", { response: await auth.authenticate(challenge, opts) }, { headers: LAPTOP });
}

describe("passkeys", () => {
  it("adding one needs the login password: a session alone cannot", async () => {
    const u = await newUser();
    for (const body of [{}, { password: "wrong-password" }]) {
      const r = await call("/api/user/passkeys/register/options", body, { token: u.token });
      expect(r).toMatchObject({ code: 0, data: { error: "password_wrong" } });
    }
    expect(await db.select().from(webauthn_challenges).where(eq(webauthn_challenges.user_id, u.id))).toHaveLength(0);
  });

  it("registers several, names, renames and removes them", async () => {
    const u = await newUser();
    const a = await registerPasskey(u.token, "Phone");
    await registerPasskey(u.token, "Laptop");
    let list = (await call("/api/user/passkeys/list", {}, { token: u.token })).data.list;
    expect(list.map((p: { name: string }) => p.name)).toEqual(["Phone", "Laptop"]);
    expect((await call("/api/user/passkeys/rename", { id: a.id, name: "Pixel" }, { token: u.token })).code).toBe(1);
    expect((await call("/api/user/passkeys/remove", { id: list[1].id }, { token: u.token })).code).toBe(1);
    list = (await call("/api/user/passkeys/list", {}, { token: u.token })).data.list;
    expect(list.map((p: { name: string }) => p.name)).toEqual(["Pixel"]);
    // Another user cannot touch it.
    const other = await newUser();
    expect((await call("/api/user/passkeys/remove", { id: a.id }, { token: other.token })).data.error).toBe("passkey_unknown");
  });

  it("signs in with a passkey (no account typed), recorded in the history", async () => {
    const u = await newUser();
    const auth = await registerPasskey(u.token);
    const r = await passkeySignIn(auth);
    expect(r.code).toBe(1);
    expect(r.data.userinfo).toMatchObject({ id: u.id, account: u.account });
    expect((await call("/api/user/user", {}, { token: r.data.userinfo.token })).code).toBe(1);
    const history = (await call("/api/user/login_history", {}, { token: u.token })).data.list;
    expect(history[0]).toMatchObject({ ok: true, method: "passkey", device: "Safari on macOS" });
    const stored = await db.query.passkeys.findFirst({ where: eq(passkeys.id, auth.id) });
    expect(stored?.counter).toBe(1);
    expect(stored?.last_used_at_ms).toBeGreaterThan(0);
  });

  it("refuses a challenge we never issued, a reused one and an expired one", async () => {
    const u = await newUser();
    const auth = await registerPasskey(u.token);
    expect((await passkeySignIn(auth, { challenge: "bm90LW91ci1jaGFsbGVuZ2U" })).data.error).toBe("passkey_challenge_expired");
    const challenge = (await call("/api/user/passkey_login/options", {})).data.options.challenge;
    expect((await passkeySignIn(auth, { challenge })).code).toBe(1);
    expect((await passkeySignIn(auth, { challenge })).data.error).toBe("passkey_challenge_expired");
    const old = (await call("/api/user/passkey_login/options", {})).data.options.challenge;
    await db.update(webauthn_challenges).set({ expires_at_ms: Date.now() - 1 }).where(eq(webauthn_challenges.challenge, old));
    expect((await passkeySignIn(auth, { challenge: old })).data.error).toBe("passkey_challenge_expired");
    const failed = (await call("/api/user/login_history", {}, { token: u.token })).data.list.filter((a: { ok: boolean; method: string }) => !a.ok && a.method === "passkey");
    expect(failed).toHaveLength(3);
  });

  it("refuses an unknown credential and a counter that did not move on", async () => {
    const u = await newUser();
    const auth = await registerPasskey(u.token);
    expect((await passkeySignIn(auth, { id: "dW5rbm93bi1jcmVkZW50aWFs" })).data.error).toBe("passkey_unknown");
    expect((await passkeySignIn(auth, { counter: 5 })).code).toBe(1);
    // A copy of the key would repeat or lower the counter.
    expect((await passkeySignIn(auth, { counter: 5 })).data.error).toBe("passkey_invalid");
    expect((await passkeySignIn(auth, { counter: 6 })).code).toBe(1);
  });

  it("a registration challenge is single-use, the user's own, and the same key is not added twice", async () => {
    const u = await newUser();
    const other = await newUser();
    const auth = await SoftwareAuthenticator.create();
    const opts = (await call("/api/user/passkeys/register/options", { password: u.password }, { token: u.token })).data.options;
    const response = await auth.register(opts.challenge);
    expect((await call("/api/user/passkeys/register/verify", { response }, { token: other.token })).data.error).toBe("passkey_challenge_expired");
    const ok = await call("/api/user/passkeys/register/verify", { response: JSON.stringify(response) }, { token: u.token });
    expect(ok.code).toBe(1);
    // With no name and no user agent to take a device label from, it is called "Passkey".
    expect(ok.data.passkey.name).toBe("Passkey");
    expect((await call("/api/user/passkeys/register/verify", { response }, { token: u.token })).data.error).toBe("passkey_challenge_expired");
    const again = (await call("/api/user/passkeys/register/options", { password: u.password }, { token: u.token })).data.options;
    expect(again.excludeCredentials.map((c: { id: string }) => c.id)).toEqual([auth.id]);
    expect((await call("/api/user/passkeys/register/verify", { response: await auth.register(again.challenge) }, { token: u.token })).data.error).toBe("passkey_exists");
  });

  it("a malformed answer is a localized refusal, never a 500", async () => {
    const u = await newUser();
    for (const response of [undefined, "not json", { id: "x" }, { id: "x", rawId: "x", type: "public-key", response: { clientDataJSON: "@@" } }]) {
      const reg = await call("/api/user/passkeys/register/verify", { response }, { token: u.token });
      const log = await call("/api/user/passkey_login/verify", { response });
      for (const r of [reg, log]) {
        expect(r.status).toBeLessThan(500);
        expect(r.code).toBe(0);
      }
    }
  });

  it("a removed passkey signs in no more", async () => {
    const u = await newUser();
    const auth = await registerPasskey(u.token);
    await call("/api/user/passkeys/remove", { id: auth.id }, { token: u.token });
    expect((await passkeySignIn(auth)).data.error).toBe("passkey_unknown");
  });
});
