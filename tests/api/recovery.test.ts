/**
 * Verified contacts and password recovery by a mailed code (decisions 138, 139), inside workerd:
 * the answer never tells whether an account exists, five wrong codes void one, a resend waits
 * 60 s and says how long, recovery ends every session and pauses withdrawals, two-factor stays,
 * and production keeps no outbox.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createApi } from "../../worker/api/app";
import { withInvocationDb } from "../../worker/db/limits";
import { dev_outbox, login_attempts, notifications, one_time_codes, profiles } from "../../worker/db/schema";
import { CODE_RULES } from "../../worker/domain/identity/one-time-codes";
import { stepAt, totpCode } from "../../worker/domain/identity/two-factor";
import { keepsOutbox } from "../../worker/mail/outbox";
import { sendMail } from "../../worker/mail/send";
import { renderMail } from "../../worker/mail/templates";
import type { Env } from "../../worker/env";
import { call, db, newUser, operatorToken, seed, testEnv, uniqueAccount, uniqueIPv4 } from "./helpers";
import { bindWallet, fundedUser, upload } from "./money/helpers";

beforeAll(() => seed());

const app = createApi();
/** Tests that sign in (argon2, slow on purpose) get room on a busy machine. */
const SLOW = 120_000;
/** The same app as a production deployment sees it. */
const production = { ...testEnv, APP_ENV: "production" } as Env;
const callAs = async (env: Env, path: string, body: Record<string, unknown>, token?: string) => {
  const res = await app.request(path, { method: "POST", headers: { "content-type": "application/json", ...(token ? { token } : {}) }, body: JSON.stringify(body) }, withInvocationDb(env));
  return { status: res.status, ...((await res.json()) as { code: number; msg: string; data: any }) };
};

const uniqueEmail = () => `${uniqueAccount("m")}@Example.com`;

/** The newest mail the outbox holds for `to`, and the six-digit code in it. */
async function lastMail(to: string) {
  const [row] = await db.select().from(dev_outbox).where(eq(dev_outbox.to, to)).orderBy(desc(dev_outbox.id)).limit(1);
  return row ? { ...row, code: /\b(\d{6})\b/.exec(row.text)?.[1] ?? null } : null;
}
const mailCount = async (to: string) => (await db.select({ id: dev_outbox.id }).from(dev_outbox).where(eq(dev_outbox.to, to))).length;

/** A user whose profile holds `email` (verified when asked, as a code would have done it). */
async function userWithEmail(opts: { verified: boolean; email?: string; user?: Awaited<ReturnType<typeof newUser>> }) {
  const u = opts.user ?? (await newUser());
  const email = opts.email ?? uniqueEmail();
  await db.insert(profiles).values({
    user_id: u.id, name: "Test User", phone: "+4915112345678", email, id_photo_id: "x", signature_id: "y", status: "submitted",
    submitted_at_ms: Date.now(), email_verified_at_ms: opts.verified ? Date.now() : null,
  });
  return { ...u, email };
}

/** The code row's last send moved back, as if `ms` had passed (the resend window is server time). */
const age = (address: string, ms: number) =>
  db.update(one_time_codes).set({ sent_at_ms: sql`${one_time_codes.sent_at_ms} - ${ms}` }).where(eq(one_time_codes.address, address));

const start = (account: string) => call("/api/user/forgot/start", { account });
const finish = (account: string, code: string, new_password = "recovered123") => call("/api/user/forgot/finish", { account, code, new_password });
const shape = (r: { status: number; code: number; msg: string; data: unknown }) => ({ status: r.status, code: r.code, msg: r.msg, data: r.data });

describe("forgot password: the start never says whether an account exists", () => {
  it("an account with a verified email, one without, and no account at all answer the same, and only the first gets mail", async () => {
    const real = await userWithEmail({ verified: true });
    const unverified = await userWithEmail({ verified: false });
    const nobody = uniqueAccount("nobody");
    const answers = [await start(real.account), await start(unverified.account), await start(nobody), await start(real.email), await start(`${nobody}@example.com`)];
    for (const a of answers) expect(shape(a)).toEqual(shape(answers[0]));
    expect(answers[0]).toMatchObject({ status: 200, code: 1, data: { retry_after: 60, expires_in: 600 } });
    // A second start inside the minute: the same 429 for all, each with the seconds its own first start left.
    const again = [await start(real.account), await start(nobody)];
    for (const a of again) {
      expect([a.status, a.data.error, Object.keys(a.data).sort()]).toEqual([429, "code_resend_wait", ["error", "retry_after", "retry_after_ms"]]);
      expect(a.data.retry_after).toBeGreaterThan(30);
      expect(a.data.retry_after).toBeLessThanOrEqual(60);
      expect(a.msg.replace(/\d+/g, "N")).toBe(again[0].msg.replace(/\d+/g, "N"));
    }
    // Mail went to the verified address only: twice (by name and by email), never to the unverified one.
    expect(await mailCount(real.email)).toBe(2);
    expect(await mailCount(unverified.email)).toBe(0);
    const mail = await lastMail(real.email);
    expect(mail?.code).toMatch(/^\d{6}$/);
    expect(mail?.subject).toContain(mail!.code!);
    // Stored hashed, never as itself.
    const rows = await db.select().from(one_time_codes).where(eq(one_time_codes.address, `account:${real.account}`));
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(mail!.code!);
  });

  it("a finish for no account is refused like a wrong code for a real one", async () => {
    const real = await userWithEmail({ verified: true });
    const nobody = uniqueAccount("nobody");
    await start(real.account);
    await start(nobody);
    const code = (await lastMail(real.email))!.code!;
    const wrong = code === "000000" ? "111111" : "000000";
    expect(shape(await finish(nobody, wrong))).toEqual(shape(await finish(real.account, wrong)));
  });
});

describe("codes: tries, the resend window, one live code", () => {
  it("five wrong codes void it: the sixth attempt is refused even with the right code, and the password stays", async () => {
    const u = await userWithEmail({ verified: true });
    expect((await start(u.account)).code).toBe(1);
    const code = (await lastMail(u.email))!.code!;
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 1; i <= CODE_RULES.max_tries; i++) {
      const r = await finish(u.account, wrong);
      expect([r.data.error, r.data.tries_left]).toEqual(["code_wrong", CODE_RULES.max_tries - i]);
    }
    const sixth = await finish(u.account, code);
    expect(sixth.data.error).toBe("code_void");
    expect((await call("/api/user/login", { account: u.account, password: u.password })).code).toBe(1);
  }, SLOW);

  it("a resend before 60 s is refused with the seconds left; after them a new code replaces the old one", async () => {
    const u = await userWithEmail({ verified: true });
    await start(u.account);
    const first = (await lastMail(u.email))!.code!;
    await age(`account:${u.account}`, 15_000);
    const early = await start(u.account);
    expect(early.status).toBe(429);
    expect(early.data.error).toBe("code_resend_wait");
    expect(early.data.retry_after).toBeGreaterThan(40);
    expect(early.data.retry_after).toBeLessThanOrEqual(45);
    expect(early.msg).toContain(`${early.data.retry_after} s`);
    const th = await call("/api/user/forgot/start", { account: u.account }, { headers: { "accept-language": "th" } });
    expect(th.msg).toMatch(/วินาที/);
    await age(`account:${u.account}`, 60_000);
    expect((await start(u.account)).code).toBe(1);
    const second = (await lastMail(u.email))!.code!;
    // One live code: the first no longer works (the draw may repeat a code one time in a million).
    if (first !== second) expect((await finish(u.account, first)).data.error).toBe("code_wrong");
    expect((await finish(u.account, second)).code).toBe(1);
    // Spent: it works once.
    expect((await finish(u.account, second, "another123")).data.error).toBe("code_expired");
  }, SLOW);

  it("sends are limited per address: the sixth in an hour is a 429 that says when", async () => {
    const nobody = uniqueAccount("limit");
    for (let i = 0; i < CODE_RULES.per_address.max; i++) {
      expect((await start(nobody)).code).toBe(1);
      await age(`account:${nobody}`, 61_000);
    }
    const sixth = await start(nobody);
    expect([sixth.status, sixth.data.error]).toEqual([429, "code_limit"]);
    expect(sixth.data.retry_after).toBeGreaterThan(60);
  });

  it("sends are limited per network, whatever the names", async () => {
    const ip = uniqueIPv4();
    const from = (account: string) => call("/api/user/forgot/start", { account }, { headers: { "cf-connecting-ip": ip } });
    for (let i = 0; i < CODE_RULES.per_network.max; i++) expect((await from(uniqueAccount("net"))).code).toBe(1);
    const over = await from(uniqueAccount("net"));
    expect([over.status, over.data.error]).toEqual([429, "code_limit"]);
  });
});

describe("after recovery", () => {
  it("every old session is dead, a withdrawal waits 24 h, the history and a notice say so, and the verified email is told", async () => {
    const funded = await fundedUser("100");
    const wallet_id = await bindWallet(funded.token);
    const u = await userWithEmail({ verified: true, user: funded });
    const second = await call("/api/user/login", { account: u.account, password: u.password });
    const tokens = [u.token, second.data.userinfo.token as string];
    await start(u.account);
    const done = await call("/api/user/forgot/finish", { account: u.account, code: (await lastMail(u.email))!.code!, new_password: "recovered123" }, { headers: { "user-agent": "Mozilla/5.0 (Linux; Android 14) Chrome/130.0 Mobile", "cf-connecting-ip": "203.0.113.7" } });
    expect(done.code).toBe(1);
    for (const token of tokens) expect((await call("/api/user/user", {}, { token })).status).toBe(401);
    expect((await call("/api/user/login", { account: u.account, password: u.password })).data.error).toBe("login_failed");
    const fresh = await call("/api/user/login", { account: u.account, password: "recovered123" });
    expect(fresh.code).toBe(1);
    const token = fresh.data.userinfo.token as string;
    const info = await call("/api/user/withdraw_info", {}, { token });
    expect(info.data.paused_until).toBeGreaterThan(Date.now() + 23 * 3600_000);
    const w = await call("/api/user/withdraw", { amount: "20", wallet_id, password: "recovered123" }, { token });
    expect(w.data.error).toBe("withdraw_paused");
    const [history] = await db.select().from(login_attempts).where(and(eq(login_attempts.user_id, u.id), eq(login_attempts.method, "recovery")));
    expect(history).toMatchObject({ ok: 1, device: "Chrome on Android", ip: "203.0.113.0/24" });
    const notice = await db.query.notifications.findFirst({ where: and(eq(notifications.user_id, u.id), eq(notifications.kind, "password_reset")) });
    expect(notice).toBeDefined();
    const told = await lastMail(u.email);
    expect(told?.subject).toBe("Your Proofline password was reset");
    expect(told?.text).toContain("Chrome on Android");
  }, SLOW);

  it("two-factor is still asked at the next sign-in", async () => {
    const u = await userWithEmail({ verified: true });
    const setup = await call("/api/user/2fa/setup", {}, { token: u.token });
    const step = stepAt(Date.now());
    expect((await call("/api/user/2fa/enable", { code: totpCode(setup.data.secret, step), password: u.password }, { token: u.token })).code).toBe(1);
    await start(u.account);
    expect((await finish(u.account, (await lastMail(u.email))!.code!)).code).toBe(1);
    const next = await call("/api/user/login", { account: u.account, password: "recovered123" });
    expect(next.data.need_2fa).toBe(true);
    expect(next.data.userinfo).toBeUndefined();
    // A step after the one used to turn it on (each code works once), within the app's drift.
    const withCode = await call("/api/user/login", { account: u.account, password: "recovered123", code: totpCode(setup.data.secret, Math.max(step + 1, stepAt(Date.now()))) });
    expect(withCode.code).toBe(1);
  }, SLOW);
});

describe("verified contacts", () => {
  it("an email is verified by the code sent to it, and a changed one is unverified again and the old address told", async () => {
    const u = await newUser();
    const email = uniqueEmail();
    const [photo, signature] = [await upload(u.token), await upload(u.token)];
    const profile = (e: string) => call("/api/user/infos", { name: "Test User", phone: "+4915112345678", email: e, id_photo: photo.data.url, signature: signature.data.url }, { token: u.token });
    expect((await profile(email)).data.email_verified).toBe(false);
    const sent = await call("/api/user/contact/send", { channel: "email" }, { token: u.token });
    expect(sent).toMatchObject({ code: 1, data: { retry_after: 60, expires_in: 600 } });
    const to = email.replace("@Example.com", "@example.com");
    const code = (await lastMail(to))!.code!;
    const wrong = code === "000000" ? "111111" : "000000";
    expect((await call("/api/user/contact/confirm", { channel: "email", code: wrong }, { token: u.token })).data).toMatchObject({ error: "code_wrong", tries_left: 4 });
    const confirmed = await call("/api/user/contact/confirm", { channel: "email", code: ` ${code.slice(0, 3)} ${code.slice(3)} ` }, { token: u.token });
    expect(confirmed.code).toBe(1);
    expect(confirmed.data.email_verified).toBe(true);
    expect((await call("/api/user/contact/send", { channel: "email" }, { token: u.token })).data.error).toBe("contact_verified");
    // The same email again keeps its verification; a new one does not, and the old one hears of it.
    expect((await profile(email)).data.email_verified).toBe(true);
    const next = uniqueEmail();
    expect((await profile(next)).data.email_verified).toBe(false);
    expect((await lastMail(to))?.subject).toBe("The email address of your Proofline account changed");
    // Recovery now goes nowhere: the new address is not verified yet.
    const before = await mailCount(to);
    expect((await start(u.account)).code).toBe(1);
    expect(await mailCount(to)).toBe(before);
  }, SLOW);

  it("a phone gets its code by SMS in the local outbox; production, with no SMS provider, says so", async () => {
    const u = await userWithEmail({ verified: false });
    const phone = `+49151${String(Date.now()).slice(-7)}`;
    await db.update(profiles).set({ phone }).where(eq(profiles.user_id, u.id));
    expect((await call("/api/user/contact/send", { channel: "phone" }, { token: u.token })).code).toBe(1);
    const sms = await lastMail(phone);
    expect(sms?.channel).toBe("sms");
    expect((await call("/api/user/contact/confirm", { channel: "phone", code: sms!.code! }, { token: u.token })).data.phone_verified).toBe(true);
    const other = await userWithEmail({ verified: false });
    const refused = await callAs(production, "/api/user/contact/send", { channel: "phone" }, other.token);
    expect(refused.data.error).toBe("sms_unavailable");
    expect(await db.select().from(one_time_codes).where(eq(one_time_codes.user_id, other.id))).toEqual([]);
  });

  it("a sign-in from a new device is also mailed to a verified email, never to an unverified one", async () => {
    const device = { "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Version/17.0 Mobile/15E148 Safari/604.1", "cf-connecting-ip": "192.0.2.44" };
    const verified = await userWithEmail({ verified: true });
    const unverified = await userWithEmail({ verified: false });
    for (const u of [verified, unverified]) expect((await call("/api/user/login", { account: u.account, password: u.password }, { headers: device })).code).toBe(1);
    const mail = await lastMail(verified.email);
    expect(mail?.subject).toBe("New sign-in to your Proofline account");
    expect(mail?.text).toContain("Safari on iOS");
    expect(await mailCount(unverified.email)).toBe(0);
  }, SLOW);

  it("a bad code or channel is a localized refusal, never a 500", async () => {
    const u = await newUser();
    expect((await call("/api/user/contact/confirm", { channel: "email", code: "12ab56" }, { token: u.token })).data.error).toBe("code_format");
    expect((await call("/api/user/contact/send", { channel: "fax" }, { token: u.token })).data.error).toBe("invalid_field");
    expect((await call("/api/user/contact/send", { channel: "email" }, { token: u.token })).data.error).toBe("contact_missing");
    expect((await call("/api/user/contact/send", { channel: "email" })).status).toBe(401);
  });
});

describe("the local outbox (decision 139)", () => {
  it("production keeps no outbox: nothing is written, and the mailbox route does not exist", async () => {
    expect(keepsOutbox(production)).toBe(false);
    expect(keepsOutbox(testEnv)).toBe(true);
    expect(keepsOutbox({ APP_ENV: "local" })).toBe(true);
    expect(keepsOutbox({ APP_ENV: "nonsense" })).toBe(false);
    const to = uniqueEmail();
    const mail = renderMail("code_verify_email", "en", { code: "123456", minutes: 10 });
    expect(await sendMail(production, db, to, mail, Date.now())).toBe("sent");
    expect(await mailCount(to)).toBe(0);
    expect(await sendMail(testEnv, db, to, mail, Date.now())).toBe("sent");
    expect(await mailCount(to)).toBe(1);
    const op = await operatorToken();
    expect((await callAs(production, "/api/admin/mailbox", {}, op)).status).toBe(404);
    // A forgot-password start in production mails the verified address without keeping a copy.
    const u = await userWithEmail({ verified: true });
    expect((await callAs(production, "/api/user/forgot/start", { account: u.account })).code).toBe(1);
    expect(await mailCount(u.email)).toBe(0);
  });

  it("a demo keeps none either (decision 145): its operators cannot read a visitor's reset code", async () => {
    const demo = { ...testEnv, APP_ENV: "demo" } as Env;
    expect(keepsOutbox(demo)).toBe(false);
    const u = await userWithEmail({ verified: true });
    expect((await callAs(demo, "/api/user/forgot/start", { account: u.account })).code).toBe(1);
    expect(await mailCount(u.email)).toBe(0);
    expect((await callAs(demo, "/api/admin/mailbox", {}, await operatorToken())).status).toBe(404);
    // With no SMS provider, a demo's phone verification says so, as production's does.
    expect((await callAs(demo, "/api/user/contact/send", { channel: "phone" }, u.token)).data?.error).toBe("sms_unavailable");
  });

  it("operators read it through /api/admin/mailbox; users and guests do not", async () => {
    const u = await userWithEmail({ verified: true });
    await start(u.account);
    const op = await operatorToken();
    const box = await call("/api/admin/mailbox", { to: u.email }, { token: op });
    expect(box.code).toBe(1);
    expect(box.data.items[0]).toMatchObject({ channel: "email", to: u.email });
    expect(box.data.items[0].text).toMatch(/\b\d{6}\b/);
    expect((await call("/api/admin/mailbox", {}, { token: u.token })).status).toBe(401);
    expect((await call("/api/admin/mailbox", {})).status).toBe(401);
  });

  it("every mail is plain text and simple HTML in the reader's language, values escaped", () => {
    const th = renderMail("code_reset_password", "th", { code: "123456", account: "<b>x</b>", minutes: 10 });
    expect(th.subject).toContain("123456");
    expect(th.text).toContain("<b>x</b>");
    expect(th.html).toContain("&#60;b&#62;x&#60;/b&#62;");
    expect(th.html).not.toContain("<b>x</b>");
    expect(th.html).toContain('lang="th"');
  });
});
