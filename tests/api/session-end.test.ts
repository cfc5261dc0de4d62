/**
 * Decision 119: when a user's sessions end, what was opened under them closes before the
 * answer: the user channel's sockets (`/ws/user`) and the customer-service pages, each with
 * 4401, so the page stops reconnecting. An operator can end all of one user's sessions, with a
 * reason in the audit log; the user's own endings (sign-out, one device, the others, a password
 * change) close exactly the sessions they end.
 */
import { and, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { SESSION_ENDED_CLOSE } from "../../durable-objects/protocol";
import { audit_log } from "../../worker/db/schema";
import { call, newUser, operatorToken, seed, db } from "./helpers";
import { cookieOf, socket } from "./service/helpers";

beforeAll(() => seed());

type Page = Awaited<ReturnType<typeof socket>>;

/** A page of the user's, signed in with `token`: its channel socket. */
async function channel(token: string): Promise<Page> {
  const s = await socket("/ws/user", await cookieOf("user", token));
  expect(s.res.status).toBe(101);
  return s;
}

/** How the page's socket closed; "open" if it was still open after `ms`. */
function closed(s: Page, ms = 3_000): Promise<number | "open"> {
  return Promise.race([s.closedWith(), new Promise<"open">((r) => setTimeout(() => r("open"), ms))]);
}

/** Still open: a ping is answered. */
async function stillOpen(s: Page) {
  s.send({ type: "ping" });
  expect((await s.nextOf("pong")).type).toBe("pong");
}

async function signIn(account: string, password: string): Promise<string> {
  const r = await call("/api/user/login", { account, password });
  expect(r.code, r.msg).toBe(1);
  return r.data.userinfo.token as string;
}

describe("an operator ends all of a user's sessions", () => {
  it("the user's open pages close, the audit log has the reason, the next API call is 401", async () => {
    const u = await newUser();
    const second = await signIn(u.account, u.password);
    const phone = await channel(u.token);
    const laptop = await channel(second);
    const opened = await call("/api/service/open", {}, { token: u.token });
    const chat = await socket(`/ws/service/${opened.data.conversation.id}`, await cookieOf("user", u.token));
    expect(chat.res.status).toBe(101);

    const op = await operatorToken();
    const before = await call(`/api/admin/users/${u.id}/sessions`, {}, { token: op });
    expect(before.data.list).toHaveLength(2);
    expect((await call(`/api/admin/users/${u.id}/sessions/end`, {}, { token: op })).data.error).toBe("incomplete");
    const ended = await call(`/api/admin/users/${u.id}/sessions/end`, { reason: "phone reported stolen" }, { token: op });
    expect(ended.code, ended.msg).toBe(1);
    expect(ended.data.ended).toBe(2);

    // Closed before the answer came back: nothing is left to wait for.
    expect(await closed(phone)).toBe(SESSION_ENDED_CLOSE);
    expect(await closed(laptop)).toBe(SESSION_ENDED_CLOSE);
    expect(await closed(chat)).toBe(SESSION_ENDED_CLOSE);
    for (const token of [u.token, second]) expect((await call("/api/user/user", {}, { token })).status).toBe(401);
    // A new page under the ended session is refused at the upgrade.
    expect((await socket("/ws/user", await cookieOf("user", u.token))).res.status).toBe(401);

    const [row] = await db
      .select()
      .from(audit_log)
      .where(and(eq(audit_log.action, "user.sessions_end"), eq(audit_log.target, `user:${u.id}`)))
      .orderBy(desc(audit_log.id))
      .limit(1);
    expect(row).toMatchObject({ reason: "phone reported stolen" });
    expect((await call(`/api/admin/users/${u.id}/sessions`, {}, { token: op })).data.list).toHaveLength(0);
  });

  it("needs an operator; an unknown user is 404; another user's pages stay open", async () => {
    const u = await newUser();
    const other = await newUser();
    const page = await channel(other.token);
    expect((await call(`/api/admin/users/${u.id}/sessions/end`, { reason: "x" }, { token: u.token })).status).toBe(401);
    const op = await operatorToken();
    expect((await call("/api/admin/users/999999999/sessions/end", { reason: "x" }, { token: op })).status).toBe(404);
    expect((await call(`/api/admin/users/${u.id}/sessions/end`, { reason: "account takeover" }, { token: op })).code).toBe(1);
    await stillOpen(page);
    expect((await call("/api/user/user", {}, { token: other.token })).code).toBe(1);
    page.close();
  });
});

describe("the user's own session endings close that session's pages, and only those", () => {
  it("signing out closes this session's pages; the other device's stay", async () => {
    const u = await newUser();
    const other = await signIn(u.account, u.password);
    const here = await channel(u.token);
    const there = await channel(other);
    expect((await call("/api/user/logout", {}, { token: u.token })).code).toBe(1);
    expect(await closed(here)).toBe(SESSION_ENDED_CLOSE);
    await stillOpen(there);
    there.close();
  });

  it("ending one device closes its pages; signing out the others closes theirs and keeps this one", async () => {
    const u = await newUser();
    const b = await signIn(u.account, u.password);
    const c = await signIn(u.account, u.password);
    const [pa, pb, pc] = [await channel(u.token), await channel(b), await channel(c)];
    const list = (await call("/api/user/sessions", {}, { token: b })).data.list as { id: string; current: boolean }[];
    const bId = list.find((s) => s.current)!.id;
    expect((await call("/api/user/sessions/revoke", { id: bId }, { token: u.token })).code).toBe(1);
    expect(await closed(pb)).toBe(SESSION_ENDED_CLOSE);
    await stillOpen(pa);
    await stillOpen(pc);
    expect((await call("/api/user/sessions/revoke", { all_others: 1 }, { token: u.token })).code).toBe(1);
    expect(await closed(pc)).toBe(SESSION_ENDED_CLOSE);
    await stillOpen(pa);
    pa.close();
  });

  it("a password change closes the other sessions' pages", async () => {
    const u = await newUser();
    const other = await signIn(u.account, u.password);
    const here = await channel(u.token);
    const there = await channel(other);
    const changed = await call("/api/user/reset_login_pwd", { old_password: u.password, new_password: "changed123", new_password_confirm: "changed123" }, { token: u.token });
    expect(changed.code, changed.msg).toBe(1);
    expect(await closed(there)).toBe(SESSION_ENDED_CLOSE);
    await stillOpen(here);
    here.close();
  });
});
