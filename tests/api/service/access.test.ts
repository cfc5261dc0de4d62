import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApi } from "../../../worker/api/app";
import { inProcessApi } from "../../../worker/api/in-process";
import { call, newUser, testEnv } from "../helpers";
import { as, cid, newGuest, operatorToken, send } from "./helpers";

describe("customer service: who may read a conversation", () => {
  it("a guest gets a conversation and an httpOnly pl_guest cookie; only pages calling in-process get the token in data", async () => {
    const g = await newGuest();
    const setCookie = g.open.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/pl_guest=/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(g.open.data.guest_token).toBeUndefined();
    expect(g.open.data.conversation).toMatchObject({ status: "open", unread: 0, is_guest: true, contexts: [] });

    // A page's call (with the page's own origin); a client claiming that origin gets no token.
    const inProcess = (await inProcessApi(createApi(), testEnv, createExecutionContext(), null, "http://127.0.0.1")("/api/service/open", { body: {} })).body;
    expect(inProcess.data.guest_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await call("/api/service/open", {}, { headers: { "x-in-process": "guess" } })).data.guest_token).toBeUndefined();
    // The page passes it back as the guest-token header and reaches the same conversation.
    const again = await call("/api/service/open", {}, { headers: { "guest-token": inProcess.data.guest_token } });
    expect(again.data.conversation.id).toBe(inProcess.data.conversation.id);
    expect(again.headers.get("set-cookie")).toBeNull();
  });

  it("another guest, another user, and nobody at all get not_found", async () => {
    const g = await newGuest();
    expect((await send(g.caller, g.conversation_id, "hello")).code).toBe(1);
    const other = await newGuest();
    const stranger = await newUser();
    for (const caller of [other.caller, { token: stranger.token }, {}]) {
      const read = await as(caller)("/api/service/messages", { conversation_id: g.conversation_id });
      expect(read.status).toBe(404);
      expect(read.data.error).toBe("not_found");
      expect((await send(caller, g.conversation_id, "intrusion")).data.error).toBe("not_found");
      expect((await as(caller)("/api/service/read", { conversation_id: g.conversation_id, up_to_id: 1 })).data.error).toBe("not_found");
    }
    // Nothing the intruders tried landed.
    const mine = await as(g.caller)("/api/service/messages", { conversation_id: g.conversation_id });
    expect(mine.data.messages.map((m: { text: string }) => m.text)).toEqual(["hello"]);
  });

  it("a user token on operator routes gets 401, and an operator token is no visitor", async () => {
    const u = await newUser();
    for (const path of ["conversations", "conversation", "messages", "send", "close", "assign", "canned", "canned_save"]) {
      const r = await call(`/api/admin/service/${path}`, { id: 1, conversation_id: 1 }, { token: u.token });
      expect(r.status, path).toBe(401);
      expect(r.data.error).toBe("operator_required");
    }
    const g = await newGuest();
    const op = await operatorToken();
    expect((await as({ token: op })("/api/service/messages", { conversation_id: g.conversation_id })).status).toBe(404);
  });

  it("hand-over at registration: the conversation follows the user, and the guest token reads nothing any more", async () => {
    const g = await newGuest();
    await send(g.caller, g.conversation_id, "before signing up");
    const account = `svc${Date.now().toString(36)}`.slice(0, 20);
    const reg = await call("/api/user/register", { account, password: "secret123", password_confirm: "secret123", invite_code: "WELCOME" }, { headers: { cookie: g.cookie } });
    expect(reg.code).toBe(1);
    // A direct client's cookie is cleared.
    expect(reg.headers.get("set-cookie")).toMatch(/pl_guest=;.*Max-Age=0/i);
    const token = reg.data.userinfo.token;
    const kefu = await call("/api/user/kefu", {}, { token });
    expect(kefu.data.conversation_id).toBe(g.conversation_id);
    const history = await as({ token })("/api/service/messages", { conversation_id: g.conversation_id });
    expect(history.data.messages.map((m: { text: string }) => m.text)).toEqual(["before signing up"]);
    expect(history.data.conversation.is_guest).toBe(false);
    // The shared computer's next visitor, holding the old cookie, sees nothing.
    const after = await as(g.caller)("/api/service/messages", { conversation_id: g.conversation_id });
    expect(after.status).toBe(404);
    expect((await call("/api/user/kefu", {}, { headers: { cookie: g.cookie } })).data.conversation_id).toBeNull();
  });

  it("hand-over at login into an existing conversation merges the guest's messages in time order", async () => {
    const u = await newUser();
    const own = await as({ token: u.token })("/api/service/open", {});
    await send({ token: u.token }, own.data.conversation.id, "first, signed in");
    const g = await newGuest();
    await send(g.caller, g.conversation_id, "second, as a guest");
    await send(g.caller, g.conversation_id, "third, as a guest");
    const login = await call("/api/user/login", { account: u.account, password: u.password }, { headers: { "guest-token": g.token } });
    expect(login.code).toBe(1);
    const token = login.data.userinfo.token;
    const history = await as({ token })("/api/service/messages", { conversation_id: own.data.conversation.id });
    const texts = history.data.messages.map((m: { text: string }) => m.text);
    expect(texts).toEqual(["first, signed in", "second, as a guest", "third, as a guest"]);
    const times = history.data.messages.map((m: { created_at_ms: number }) => m.created_at_ms);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    // The emptied guest conversation is gone for everyone: guest, user and the console.
    expect((await as(g.caller)("/api/service/messages", { conversation_id: g.conversation_id })).status).toBe(404);
    expect((await as({ token })("/api/service/messages", { conversation_id: g.conversation_id })).status).toBe(404);
    const op = await operatorToken();
    expect((await call("/api/admin/service/conversation", { id: g.conversation_id }, { token: op })).status).toBe(404);
  });

  it("contexts: only the caller's own records, an unknown promotion is not found, and attaching twice is harmless", async () => {
    const { recharge } = await import("../money/helpers");
    const u = await newUser();
    const other = await newUser();
    const dep = await recharge(u.token, "50");
    expect(dep.code).toBe(1);
    const ctx = { context: { kind: "deposit", ref_id: dep.data.id } };
    const first = await as({ token: u.token })("/api/service/open", ctx);
    const second = await as({ token: u.token })("/api/service/open", ctx);
    expect(second.data.conversation.id).toBe(first.data.conversation.id);
    expect(second.data.conversation.contexts).toEqual([{ kind: "deposit", ref_id: dep.data.id, label: `Deposit #${dep.data.id}` }]);
    // Form posts send the context flat.
    const form = await call("/api/service/open", `context_kind=deposit&context_ref_id=${dep.data.id}&lang=ja`, { token: u.token, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(form.data.conversation.contexts[0].label).toBe(`入金 #${dep.data.id}`);
    expect((await as({ token: other.token })("/api/service/open", ctx)).data.error).toBe("not_found");
    expect((await call("/api/service/open", ctx)).data.error).toBe("not_found");
    expect((await as({ token: u.token })("/api/service/open", { context: { kind: "promotion", ref_id: 999_999 } })).data.error).toBe("not_found");
    // A promotion that exists may be attached (the booking page sends the user here with it), titled in the caller's words.
    const { operators, openPromotion } = await import("../promotions/helpers");
    const promotion_id = await openPromotion(await operators());
    const withPromotion = await as({ token: u.token })("/api/service/open", { context: { kind: "promotion", ref_id: promotion_id } });
    expect(withPromotion.code).toBe(1);
    expect(withPromotion.data.conversation.contexts.map((c: { kind: string }) => c.kind)).toEqual(["deposit", "promotion"]);
    expect((await as({ token: u.token })("/api/service/open", { context: { kind: "bonus", ref_id: 1 } })).data.error).toBe("invalid_field");
  });

  it("kefu is open and carries the contacts, the conversation and its unread count", async () => {
    const anonymous = await call("/api/user/kefu", {});
    expect(anonymous.code).toBe(1);
    expect(anonymous.data).toMatchObject({ conversation_id: null, unread: 0 });
    expect(anonymous.data).toHaveProperty("wechat");
    expect(anonymous.data).toHaveProperty("mobile");
    const g = await newGuest();
    await send(g.caller, g.conversation_id, "hi");
    const op = await operatorToken();
    await call("/api/admin/service/send", { conversation_id: g.conversation_id, client_message_id: cid("op"), text: "hello!" }, { token: op });
    const kefu = await call("/api/user/kefu", {}, { headers: { cookie: g.cookie } });
    expect(kefu.data).toMatchObject({ conversation_id: g.conversation_id, unread: 1 });
  });
});
