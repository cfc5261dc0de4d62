/**
 * Decision 118: one operator's session alone cannot move money. Every console route that moves
 * money or sets money terms (STEP_UP_ROUTES, worker/api/middleware/step-up.ts) refuses a session
 * whose last confirmation of the factor is older than five minutes, with `step_up_required`;
 * `/api/admin/step_up` with a fresh code opens them again. Every other POST under /api/admin is
 * named below as moving nothing, so a new route has to be sorted into one list or the other.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createApi } from "../../worker/api/app";
import { sessions } from "../../worker/db/schema";
import { STEP_UP_TTL_MS } from "../../worker/domain/identity/operator-two-factor";
import { hashSessionToken } from "../../worker/domain/identity/session";
import { STEP_UP_ROUTES } from "../../worker/api/middleware/step-up";
import { createOperator } from "../../worker/domain/identity/operators";
import { call, db, operatorCode, operatorLogin, seed, stepUp, uniqueAccount } from "./helpers";

/** POST routes under /api/admin that move no money and set no money terms, and why. */
const MOVES_NOTHING: Record<string, string> = {
  "/api/admin/login": "sign-in",
  "/api/admin/logout": "sign-out",
  "/api/admin/2fa/setup": "enrolment",
  "/api/admin/2fa/enable": "enrolment",
  "/api/admin/step_up": "the confirmation itself",
  "/api/admin/sessions/end": "ending sessions moves no money (decision 137)",
  "/api/admin/contacts": "site content",
  "/api/admin/slides": "site content",
  "/api/admin/slides/:id": "site content",
  "/api/admin/deposits/:id/reject": "a refused deposit credits nothing",
  "/api/admin/adjustments/:id/reject": "a refused adjustment moves nothing",
  "/api/admin/promotions/bookings/:id/decline": "a declined booking grants nothing",
  "/api/admin/terms/proposals/:id/decline": "a declined proposal leaves the terms in force",
  "/api/admin/profiles/:user_id/verify": "identity review",
  "/api/admin/profiles/:user_id/reject": "identity review",
  "/api/admin/users/:id/sessions/end": "signs a user out",
  "/api/admin/proof/liabilities": "a snapshot of what is owed",
  "/api/admin/service/send": "customer service",
  "/api/admin/service/read": "customer service",
  "/api/admin/service/upload": "customer service",
  "/api/admin/service/assign": "customer service",
  "/api/admin/service/close": "customer service",
  "/api/admin/service/reopen": "customer service",
  "/api/admin/service/canned_save": "customer service",
  "/api/admin/service/canned_delete": "customer service",
};

const money = STEP_UP_ROUTES.map((p) => `/api${p}`);
/** Every POST route under /api/admin the app has (a route answering GET and POST reads only). */
function adminPosts(): string[] {
  const app = createApi();
  const both = new Set(app.routes.filter((r) => r.method === "GET").map((r) => r.path));
  return [...new Set(app.routes.filter((r) => r.method === "POST" && r.path.startsWith("/api/admin/") && !both.has(r.path)).map((r) => r.path))];
}

/** Path parameters that name nothing (ids start at 1): the calls below can change nothing. */
const concrete = (path: string) => path.replace(/:[a-z_]+/g, "0");

/** Moves the session's last confirmation `age_ms` into the past. */
async function confirmedAgo(token: string, age_ms: number) {
  await db.update(sessions).set({ step_up_at_ms: Date.now() - age_ms }).where(sql`${sessions.token_hash} = ${hashSessionToken(token)}`);
}

beforeAll(() => seed());

const PASSWORD = "Step-up-operator-1";
/** An operator of the test's own (the helpers give it a key): its codes are all unused. */
async function newOperator(): Promise<string> {
  const account = uniqueAccount("su");
  const r = await createOperator(db, { account, password: PASSWORD }, Date.now());
  if (r.status !== "ok") throw new Error(`createOperator: ${r.status}`);
  return account;
}

describe("the money routes need a fresh confirmation of the operator's factor", () => {
  it("every POST under /api/admin is a money route or named as moving nothing, and every money route exists", () => {
    const posts = adminPosts();
    const unsorted = posts.filter((p) => !money.includes(p) && !(p in MOVES_NOTHING));
    expect(unsorted, "new console routes: add each to STEP_UP_ROUTES (worker/api/middleware/step-up.ts) or to MOVES_NOTHING here").toEqual([]);
    expect(money.filter((p) => !posts.includes(p))).toEqual([]);
    expect(money.length).toBeGreaterThanOrEqual(21);
  });

  it("each money route refuses a confirmation older than five minutes with step_up_required; a fresh code opens them all", async () => {
    // An operator of the test's own: the demo operator's codes are shared with every file of this
    // workerd, and a sign-in and a confirmation in a row could each wait for the app's next 30 s step.
    const op = await newOperator();
    const login = await operatorLogin(op, PASSWORD);
    expect(login.code, login.msg).toBe(1);
    const token = login.data.token as string;
    await confirmedAgo(token, STEP_UP_TTL_MS + 1_000);
    for (const path of money) {
      const r = await call(concrete(path), {}, { token });
      expect(r.status, path).toBe(403);
      expect(r.data.error, path).toBe("step_up_required");
      expect(r.msg, path).toBe("Confirm with a code from your authenticator app to continue.");
    }
    // The console pages are in the operator's language too.
    expect((await call(concrete(money[0]), { lang: "ja" }, { token })).msg).toBe("続けるには、認証アプリのコードで確認してください。");
    // Routes that move nothing do not ask.
    expect((await call("/api/admin/contacts", {}, { token })).data.error).toBe("incomplete");

    const confirmed = await stepUp(op, token);
    expect(confirmed.code, confirmed.msg).toBe(1);
    expect(confirmed.data.step_up_until_ms).toBeGreaterThan(Date.now() + STEP_UP_TTL_MS - 60_000);
    for (const path of money) {
      const r = await call(concrete(path), {}, { token });
      expect(r.data.error, path).not.toBe("step_up_required");
      expect(r.status, path).toBeLessThan(500);
    }
  });

  it("a confirmation holds for five minutes, on its own session only", async () => {
    const op = await newOperator();
    const a = (await operatorLogin(op, PASSWORD)).data.token as string;
    const b = (await operatorLogin(op, PASSWORD)).data.token as string;
    const route = concrete(money[0]);
    await confirmedAgo(a, STEP_UP_TTL_MS - 30_000);
    expect((await call(route, {}, { token: a })).data.error).not.toBe("step_up_required");
    await confirmedAgo(a, STEP_UP_TTL_MS);
    expect((await call(route, {}, { token: a })).data.error).toBe("step_up_required");
    // Signing in with a code is a confirmation; confirming on one session leaves the other as it was.
    expect((await call(route, {}, { token: b })).data.error).not.toBe("step_up_required");
    await confirmedAgo(b, STEP_UP_TTL_MS + 1);
    expect((await stepUp(op, a)).code).toBe(1);
    expect((await call(route, {}, { token: b })).data.error).toBe("step_up_required");
    // Three codes of one operator: the third may wait for the app's next step.
  }, 60_000);

  it("the confirmation takes a right, unused code of the key in force", async () => {
    const op = await newOperator();
    const token = (await operatorLogin(op, PASSWORD)).data.token as string;
    await confirmedAgo(token, STEP_UP_TTL_MS + 1);
    expect((await call("/api/admin/step_up", {}, { token })).data.error).toBe("incomplete");
    const right = await operatorCode(op);
    const wrong = right === "000000" ? "111111" : "000000";
    expect((await call("/api/admin/step_up", { code: wrong }, { token })).data.error).toBe("two_factor_code_wrong");
    expect((await call("/api/admin/step_up", { code: right }, { token })).code).toBe(1);
    expect((await call("/api/admin/step_up", { code: right }, { token })).data.error).toBe("two_factor_code_wrong");
    // Nobody else's session is confirmed by it, and without a session there is nothing to confirm.
    expect((await call("/api/admin/step_up", { code: right })).status).toBe(401);
  });
});
