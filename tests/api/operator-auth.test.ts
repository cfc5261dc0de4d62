/**
 * Decision 117: operators sign in with a second factor. The password alone issues nothing; an
 * operator without a key gets a session that can only enrol one (QR and text, then one code),
 * and reaches nothing else of the console, its sockets or the uploads, until then.
 */
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../scripts/seed-demo";
import { operator_two_factor, operators } from "../../worker/db/schema";
import { createOperator } from "../../worker/domain/identity/operators";
import { stepAt, totpCode } from "../../worker/domain/identity/two-factor";
import { call, db, newUser, operatorCode, operatorLogin, page, seed, uniqueAccount } from "./helpers";
import { upload } from "./money/helpers";
import { cookieOf } from "./service/helpers";

beforeAll(() => seed());

const PASSWORD = "Operator-2fa-12345";

async function newOperator() {
  const account = uniqueAccount("op");
  const r = await createOperator(db, { account, password: PASSWORD }, Date.now());
  if (r.status !== "ok") throw new Error(`createOperator: ${r.status}`);
  return { account, id: r.operator.id };
}

/** The key's code for the newest step not yet used (the test is the operator's phone). */
async function codeFor(operator_id: number, key: string) {
  const row = await db.query.operator_two_factor.findFirst({ where: eq(operator_two_factor.operator_id, operator_id) });
  return totpCode(key, Math.max(stepAt(Date.now()), (row?.last_step ?? 0) + 1));
}

describe("operator sign-in asks for the authenticator code", () => {
  it("the right password without a code issues nothing; a wrong code is a failed sign-in; the right one opens the console", async () => {
    const { account, password } = DEMO.operator;
    const bare = await call("/api/admin/login", { account, password });
    expect(bare.code).toBe(0);
    expect(bare.data).toMatchObject({ error: "two_factor_needed", need_2fa: true });
    expect(bare.data.token).toBeUndefined();
    const right = await operatorCode(account);
    const wrong = right === "000000" ? "111111" : "000000";
    expect((await call("/api/admin/login", { account, password, code: wrong })).data.error).toBe("login_failed");
    const ok = await call("/api/admin/login", { account, password, code: right });
    expect(ok.code, ok.msg).toBe(1);
    expect(ok.data.enrolled).toBe(true);
    expect((await call("/api/admin/me", {}, { token: ok.data.token })).code).toBe(1);
    // Each code works once: the same code again is refused, even with the right password.
    expect((await call("/api/admin/login", { account, password, code: right })).data.error).toBe("login_failed");
  });

  it("a wrong password with a right code is refused the same way", async () => {
    const r = await call("/api/admin/login", { account: DEMO.operator2.account, password: "wrong-password-1", code: await operatorCode(DEMO.operator2.account) });
    expect(r.data.error).toBe("login_failed");
  });
});

describe("an operator without a key enrols at the first sign-in, before anything else", () => {
  it("the session reaches only enrolment; the key is shown once with its otpauth URL, sealed at rest; one code puts it in force", async () => {
    const op = await newOperator();
    const login = await call("/api/admin/login", { account: op.account, password: PASSWORD });
    expect(login.code, login.msg).toBe(1);
    expect(login.data.enrolled).toBe(false);
    const token = login.data.token as string;

    // Nothing else of the console answers: not the API, not the operator sockets, not the uploads.
    for (const path of ["/api/admin/me", "/api/admin/overview", "/api/admin/deposits", "/api/admin/users", "/api/admin/service/conversations", "/api/admin/step_up"]) {
      const r = await call(path, {}, { token });
      expect(r.status, path).toBe(403);
      expect(r.data.error, path).toBe("operator_enrolment_required");
    }
    const cookie = await cookieOf("operator", token);
    expect((await page("/ws/service/inbox", { headers: { upgrade: "websocket", cookie, origin: "http://127.0.0.1" } })).status).toBe(401);
    const owner = await newUser();
    const picture = (await upload(owner.token)).data.url as string;
    expect((await page(picture, { headers: { cookie } })).status).toBe(404);
    // The console pages send it to the enrolment page.
    expect((await page("/admin", { headers: { cookie } })).headers.get("location")).toBe("/admin/enrol");
    const enrolPage = await page("/admin/enrol", { headers: { cookie } });
    expect(enrolPage.status).toBe(200);
    expect(await enrolPage.text()).toContain('data-testid="operator-enrol-start"');

    const setup = await call("/api/admin/2fa/setup", {}, { token });
    expect(setup.code, setup.msg).toBe(1);
    const key = setup.data.secret as string;
    expect(setup.data.otpauth_url).toContain(`secret=${key}`);
    expect(setup.data.otpauth_url).toContain(encodeURIComponent(op.account));
    const stored = await db.query.operator_two_factor.findFirst({ where: eq(operator_two_factor.operator_id, op.id) });
    expect(stored?.secret.startsWith("v1.")).toBe(true);
    expect(stored?.secret).not.toContain(key);
    expect(stored?.enabled_at_ms).toBeNull();

    expect((await call("/api/admin/2fa/enable", { code: "123456" === (await codeFor(op.id, key)) ? "654321" : "123456" }, { token })).data.error).toBe("two_factor_code_wrong");
    const enabled = await call("/api/admin/2fa/enable", { code: await codeFor(op.id, key) }, { token });
    expect(enabled.code, enabled.msg).toBe(1);
    // The enrolling session is now a full one, confirmed just now.
    expect((await call("/api/admin/me", {}, { token })).code).toBe(1);
    expect((await page("/admin/enrol", { headers: { cookie } })).headers.get("location")).toBe("/admin");
    expect((await page("/ws/service/inbox", { headers: { upgrade: "websocket", cookie, origin: "http://127.0.0.1" } })).status).toBe(101);
    // The key in force is never answered again, and the next sign-in needs a code.
    expect((await call("/api/admin/2fa/setup", {}, { token })).data.error).toBe("two_factor_already_on");
    expect((await call("/api/admin/login", { account: op.account, password: PASSWORD })).data.need_2fa).toBe(true);
    const next = await call("/api/admin/login", { account: op.account, password: PASSWORD, code: await codeFor(op.id, key) });
    expect(next.data.enrolled).toBe(true);
  });

  it("an enrolling session may sign out; enrolment routes need a session", async () => {
    const op = await newOperator();
    const token = (await call("/api/admin/login", { account: op.account, password: PASSWORD })).data.token as string;
    expect((await call("/api/admin/2fa/setup", {})).status).toBe(401);
    expect((await call("/api/admin/logout", {}, { token })).code).toBe(1);
    expect((await call("/api/admin/2fa/setup", {}, { token })).status).toBe(401);
  });

  it("wrong codes count in the operator's sign-in throttle: five lock sign-in too", async () => {
    const op = await newOperator();
    const token = (await call("/api/admin/login", { account: op.account, password: PASSWORD })).data.token as string;
    const key = (await call("/api/admin/2fa/setup", {}, { token })).data.secret as string;
    const right = await codeFor(op.id, key);
    const wrong = right === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) expect((await call("/api/admin/2fa/enable", { code: wrong }, { token })).data.error).toBe("two_factor_code_wrong");
    expect((await call("/api/admin/2fa/enable", { code: right }, { token })).status).toBe(429);
    expect((await call("/api/admin/login", { account: op.account, password: PASSWORD })).status).toBe(429);
  });

  it("a disabled operator's key does not help: sign-in is refused", async () => {
    const op = await newOperator();
    const login = await operatorLogin(op.account, PASSWORD);
    expect(login.code, login.msg).toBe(1);
    await db.update(operators).set({ enabled: 0 }).where(eq(operators.id, op.id));
    expect((await operatorLogin(op.account, PASSWORD)).data.error).toBe("login_failed");
  });
});
