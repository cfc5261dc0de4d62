/**
 * People (decision 137): creating an operator is audited; `operator:disable` (its domain
 * function) stops sign-in, ends the operator's sessions and is audited; the incident's "end every
 * session" (`npm run sessions:end`, through `POST /api/admin/sessions/end`) counts in a dry run,
 * then ends users' sessions in batches, closes their sockets, ends other operators' sessions
 * and keeps the caller's, with an audit row per batch.
 * Its own workerd (tests/api/keys/*): it ends every session of the database.
 */
import { and, desc, eq, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { SESSION_ENDED_CLOSE } from "../../../durable-objects/protocol";
import { audit_log, operators, sessions } from "../../../worker/db/schema";
import { createOperator } from "../../../worker/domain/identity/operators";
import { disableOperator, endSessions } from "../../../worker/domain/identity/people";
import { call, db, newUser, operatorLogin, operatorToken, seed } from "../helpers";
import { cookieOf, socket } from "../service/helpers";

const PASSWORD = "Operator-pass-123";

beforeAll(() => seed());

const auditOf = async (action: string) => db.select().from(audit_log).where(eq(audit_log.action, action)).orderBy(desc(audit_log.id));
const liveSessions = async (kind: "user" | "operator") => (await db.select().from(sessions).where(and(eq(sessions.kind, kind), isNull(sessions.revoked_at_ms)))).length;

describe("operators on and off", () => {
  it("creating an operator writes its audit row in the same batch", async () => {
    const r = await createOperator(db, { account: "ops_new1", password: PASSWORD, audit: { operator_id: 0, via: "npm run operator:create" } }, Date.now());
    expect(r.status).toBe("ok");
    const [row] = await auditOf("operator.create");
    expect(row).toMatchObject({ operator_id: 0, target: "operator:ops_new1", data_json: JSON.stringify({ via: "npm run operator:create" }) });
    // A taken account writes neither the operator nor a second audit row.
    expect((await createOperator(db, { account: "ops_new1", password: PASSWORD }, Date.now())).status).toBe("account_taken");
    expect((await auditOf("operator.create")).filter((a) => a.target === "operator:ops_new1")).toHaveLength(1);
  });

  it("a disabled operator's session is refused at once, they cannot sign in, and it is audited", async () => {
    expect((await createOperator(db, { account: "ops_leaver", password: PASSWORD }, Date.now())).status).toBe("ok");
    const login = await operatorLogin("ops_leaver", PASSWORD);
    expect(login.code, login.msg).toBe(1);
    const token = login.data.token as string;
    expect((await call("/api/admin/me", {}, { token })).code).toBe(1);

    expect((await disableOperator(db, { account: "ops_leaver", reason: " ", by_operator_id: 0, via: "test" }, Date.now())).status).toBe("reason_required");
    const r = await disableOperator(db, { account: "ops_leaver", reason: "left the company", by_operator_id: 0, via: "npm run operator:disable" }, Date.now());
    expect(r).toMatchObject({ status: "ok", sessions_ended: 1 });
    expect((await call("/api/admin/me", {}, { token })).status).toBe(401);
    expect((await operatorLogin("ops_leaver", PASSWORD)).code).not.toBe(1);
    expect((await db.query.operators.findFirst({ where: eq(operators.account, "ops_leaver") }))!.enabled).toBe(0);
    const [row] = await auditOf("operator.disable");
    expect(row).toMatchObject({ operator_id: 0, target: "operator:ops_leaver", reason: "left the company" });
    expect((await disableOperator(db, { account: "ops_leaver", reason: "again", by_operator_id: 0, via: "test" }, Date.now())).status).toBe("already_disabled");
    expect((await disableOperator(db, { account: "nobody_here", reason: "x", by_operator_id: 0, via: "test" }, Date.now())).status).toBe("not_found");
  });
});

describe("end every session", () => {
  it("a dry run counts and changes nothing; then the command's batches end every user's session, each batch audited", async () => {
    const users = await Promise.all([newUser(), newUser(), newUser()]);
    const caller = await operatorToken();
    expect((await createOperator(db, { account: "ops_other", password: PASSWORD }, Date.now())).status).toBe("ok");
    expect((await operatorLogin("ops_other", PASSWORD)).code).toBe(1);
    const liveUsers = await liveSessions("user");
    expect(liveUsers).toBeGreaterThanOrEqual(3);

    // Neither or both scopes: refused, in words.
    const neither = await call("/api/admin/sessions/end", { reason: "incident" }, { token: caller });
    expect(neither.data.error).toBe("sessions_scope");
    expect((await call("/api/admin/sessions/end", { all: true, user_id: users[0].id, reason: "x" }, { token: caller })).data.error).toBe("sessions_scope");
    expect((await call("/api/admin/sessions/end", { all: true, reason: "" }, { token: caller })).code).not.toBe(1);

    const dry = await call("/api/admin/sessions/end", { all: true, reason: "incident 7", dry_run: true }, { token: caller });
    expect(dry.code, dry.msg).toBe(1);
    expect(dry.data).toMatchObject({ dry_run: true, user_sessions: liveUsers, next_after_user_id: null });
    expect(dry.data.operator_sessions).toBeGreaterThanOrEqual(1);
    expect(await liveSessions("user")).toBe(liveUsers);
    expect((await call("/api/user/user", {}, { token: users[0].token })).code).toBe(1);

    // The command's loop, in batches of two users (the route's domain function, batch size lowered).
    const now = Date.now();
    const op = (await db.select().from(sessions).where(eq(sessions.kind, "operator")))[0];
    let after = 0;
    let batches = 0;
    for (;;) {
      const r = await endSessions(db, { scope: { all: true }, reason: "incident 7", operator_id: op.subject_id, keep_token_hash: "none", dry_run: false, after_user_id: after, batch_users: 2 }, now);
      batches += 1;
      if (r.next_after_user_id === null) break;
      after = r.next_after_user_id;
    }
    expect(batches).toBeGreaterThanOrEqual(2);
    expect(await liveSessions("user")).toBe(0);
    expect((await auditOf("sessions.end")).length).toBe(batches);
  });

  it("through the route: sockets close with 4401, other operators are signed out, the caller is not", async () => {
    const u = await newUser();
    const page = await socket("/ws/user", await cookieOf("user", u.token));
    expect(page.res.status).toBe(101);
    const caller = await operatorToken();
    const other = (await operatorLogin("ops_other", PASSWORD)).data.token as string;
    const live = await liveSessions("user");
    const r = await call("/api/admin/sessions/end", { all: true, reason: "incident 8" }, { token: caller });
    expect(r.code, r.msg).toBe(1);
    expect(r.data).toMatchObject({ dry_run: false, user_sessions: live, next_after_user_id: null });
    expect(await liveSessions("user")).toBe(0);
    expect(r.data.operator_sessions).toBeGreaterThanOrEqual(1);
    expect(await Promise.race([page.closedWith(), new Promise((res) => setTimeout(() => res("open"), 3000))])).toBe(SESSION_ENDED_CLOSE);
    expect((await call("/api/user/user", {}, { token: u.token })).status).toBe(401);
    expect((await call("/api/admin/me", {}, { token: other })).status).toBe(401);
    expect((await call("/api/admin/me", {}, { token: caller })).code).toBe(1);
    const [row] = await auditOf("sessions.end");
    expect(row).toMatchObject({ target: "all", reason: "incident 8" });

    // One user's, by id.
    const v = await newUser();
    const one = await call("/api/admin/sessions/end", { user_id: v.id, reason: "phone stolen" }, { token: caller });
    expect(one.data).toMatchObject({ users: 1, user_sessions: 1, operator_sessions: 0 });
    expect((await call("/api/user/user", {}, { token: v.token })).status).toBe(401);
    expect((await auditOf("sessions.end"))[0]).toMatchObject({ target: `user:${v.id}`, reason: "phone stolen" });
  });
});
