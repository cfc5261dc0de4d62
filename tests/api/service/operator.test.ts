import { describe, expect, it } from "vitest";
import { call, newUser } from "../helpers";
import { as, cid, newGuest, operatorToken, opSend, send } from "./helpers";

async function op<T = any>(path: string, body: Record<string, unknown> = {}) {
  return call<T>(`/api/admin/service/${path}`, body, { token: await operatorToken() });
}

async function auditActions(prefix: string): Promise<{ action: string; target: string }[]> {
  return (await call("/api/admin/audit", { action: prefix, row: 100 }, { token: await operatorToken() })).data.items;
}

describe("customer service console", () => {
  it("the inbox lists conversations with unread counts and filters, newest activity first", async () => {
    const u = await newUser();
    const mine = (await as({ token: u.token })("/api/service/open", {})).data.conversation.id;
    await send({ token: u.token }, mine, "one");
    await send({ token: u.token }, mine, "two");
    const g = await newGuest();
    await send(g.caller, g.conversation_id, "from a guest");
    const open = await op("conversations", { filter: "open" });
    expect(open.code).toBe(1);
    const [first, second] = open.data.items;
    expect(first).toMatchObject({ id: g.conversation_id, who: `guest #${g.conversation_id}`, user_id: null, unread: 1, last_message_preview: "from a guest", status: "open", assigned_operator: null });
    expect(second).toMatchObject({ id: mine, who: u.account, user_id: u.id, unread: 2, last_message_preview: "two" });
    expect((await op("conversations", { filter: "unassigned" })).data.items.map((r: { id: number }) => r.id)).toContain(mine);
    expect((await op("conversations", { filter: "mine" })).data.items.map((r: { id: number }) => r.id)).not.toContain(mine);
    expect((await op("conversations", { filter: "everything" })).data.error).toBe("invalid_field");
  });

  it("a picture's preview in the inbox is the console's word for it, in its language", async () => {
    const { PNG } = await import("../money/helpers");
    const g = await newGuest();
    const fd = new FormData();
    fd.set("file", new File([PNG as BlobPart], "a.png", { type: "image/png" }));
    const up = await as(g.caller)("/api/service/upload", fd);
    await as(g.caller)("/api/service/send", { conversation_id: g.conversation_id, client_message_id: cid(), upload_id: up.data.upload_id });
    const rows = (await op("conversations", { lang: "ja" })).data.items;
    expect(rows.find((r: { id: number }) => r.id === g.conversation_id).last_message_preview).toBe("[画像]");
  });

  it("the conversation shows the user's profile state and balances beside it, and each context's summary", async () => {
    const { recharge } = await import("../money/helpers");
    const u = await newUser();
    const dep = await recharge(u.token, "25");
    const id = (await as({ token: u.token })("/api/service/open", { context: { kind: "deposit", ref_id: dep.data.id } })).data.conversation.id;
    const detail = await op("conversation", { id });
    expect(detail.data.user).toMatchObject({ id: u.id, account: u.account, profile_status: "none" });
    expect(Object.keys(detail.data.user.balances).sort()).toEqual(["available", "locked_pool", "locked_trade", "locked_withdrawal"]);
    expect(detail.data.user.balances.locked_trade).toBe("0.00");
    expect(detail.data.contexts).toEqual([{ kind: "deposit", ref_id: dep.data.id, summary: expect.stringContaining("25.00 USDT · review") }]);
    const g = await newGuest();
    expect((await op("conversation", { id: g.conversation_id })).data.user).toBeNull();
    expect((await op("conversation", { id: 99_999_999 })).status).toBe(404);
  });

  it("assign, close and reopen are audit-logged; a closed conversation takes no operator message until reopened; a visitor's message reopens it", async () => {
    const g = await newGuest();
    await send(g.caller, g.conversation_id, "help");
    const me = (await call("/api/admin/me", {}, { token: await operatorToken() })).data;
    const assigned = await op("assign", { conversation_id: g.conversation_id, operator_id: me.id });
    expect(assigned.data.conversation.assigned_operator_id).toBe(me.id);
    expect((await op("conversations", { filter: "mine" })).data.items.map((r: { id: number }) => r.id)).toContain(g.conversation_id);
    expect((await op("assign", { conversation_id: g.conversation_id, operator_id: 99_999 })).data.error).toBe("service_operator_unknown");

    expect((await op("close", { conversation_id: g.conversation_id })).data.conversation.status).toBe("closed");
    expect((await op("close", { conversation_id: g.conversation_id })).data.error).toBe("state_conflict");
    expect((await opSend(g.conversation_id, "too late")).data.error).toBe("service_closed");
    const seen = (await as(g.caller)("/api/service/messages", { conversation_id: g.conversation_id })).data;
    expect(seen.messages.at(-1)).toMatchObject({ author: "system", text: "closed" });
    expect(seen.conversation.status).toBe("closed");

    expect((await op("reopen", { conversation_id: g.conversation_id })).data.conversation.status).toBe("open");
    await op("close", { conversation_id: g.conversation_id });
    await send(g.caller, g.conversation_id, "one more question");
    expect((await as(g.caller)("/api/service/messages", { conversation_id: g.conversation_id })).data.conversation.status).toBe("open");

    const target = `conversation:${g.conversation_id}`;
    const audit = (await auditActions("service.")).filter((a) => a.target === target).map((a) => a.action);
    expect(audit.sort()).toEqual(["service.assign", "service.close", "service.close", "service.reopen"]);
  });

  it("every operator message records which operator wrote it", async () => {
    const g = await newGuest();
    const reply = await opSend(g.conversation_id, "hello from the console");
    expect(reply.data.message).toMatchObject({ author: "operator", operator_name: "operator" });
    const { db } = await import("../helpers");
    const row = await db.query.service_messages.findFirst({ where: (m, { eq }) => eq(m.id, reply.data.message.id) });
    const me = (await call("/api/admin/me", {}, { token: await operatorToken() })).data;
    expect(row?.operator_id).toBe(me.id);
  });

  it("canned replies per language: save, edit, list by language, delete, all audit-logged", async () => {
    const saved = await op("canned_save", { lang: "ja", title: "挨拶", text: "お問い合わせありがとうございます。" });
    expect(saved.code).toBe(1);
    const id = saved.data.item.id;
    await op("canned_save", { id, lang: "ja", title: "挨拶", text: "ご連絡ありがとうございます。" });
    await op("canned_save", { lang: "en", title: "Hello", text: "Thanks for reaching out." });
    const ja = (await op("canned", { lang: "ja" })).data.items;
    expect(ja.find((r: { id: number }) => r.id === id)).toEqual({ id, lang: "ja", title: "挨拶", text: "ご連絡ありがとうございます。" });
    expect(ja.every((r: { lang: string }) => r.lang === "ja")).toBe(true);
    expect((await op("canned_save", { lang: "xx", title: "t", text: "t" })).data.error).toBe("invalid_field");
    expect((await op("canned_save", { lang: "en", title: "t", text: "x".repeat(2001) })).data.error).toBe("service_text_too_long");
    expect((await op("canned_delete", { id })).code).toBe(1);
    expect((await op("canned_delete", { id })).status).toBe(404);
    const actions = (await auditActions("service.canned")).filter((a) => a.target === `canned:${id}`).map((a) => a.action);
    expect(actions.sort()).toEqual(["service.canned_delete", "service.canned_save"]);
  });
});
