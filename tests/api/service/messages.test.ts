import { describe, expect, it } from "vitest";
import { call, page } from "../helpers";
import { PNG } from "../money/helpers";
import { as, cid, cookieOf, newGuest, operatorToken, opSend, send } from "./helpers";

type Msg = { id: number; text: string | null; client_message_id: string | null; author: string; state: string; image_url: string | null; operator_name: string | null };

async function history(caller: { headers?: Record<string, string>; token?: string }, conversation_id: number, extra: Record<string, unknown> = {}) {
  const r = await as(caller)("/api/service/messages", { conversation_id, ...extra });
  expect(r.code, r.msg).toBe(1);
  return r.data as { messages: Msg[]; has_more: boolean; conversation: { unread: number; peer_read_id: number } };
}

describe("customer service messages", () => {
  it("a resend with the same client id returns the stored message and changes nothing", async () => {
    const g = await newGuest();
    const id = cid();
    const first = await send(g.caller, g.conversation_id, "  once  ", id);
    expect(first.data).toMatchObject({ duplicate: false, message: { text: "once", client_message_id: id, author: "visitor", state: "sent" } });
    const again = await send(g.caller, g.conversation_id, "different text, same id", id);
    expect(again.data.duplicate).toBe(true);
    expect(again.data.message).toEqual(first.data.message);
    expect((await history(g.caller, g.conversation_id)).messages).toHaveLength(1);
  });

  it("D1 itself refuses a second message with the same conversation, side and client id", async () => {
    const { db } = await import("../helpers");
    const { service_messages } = await import("../../../worker/db/schema");
    const g = await newGuest();
    const row = { conversation_id: g.conversation_id, author: "visitor" as const, client_message_id: cid(), text: "x", created_at_ms: Date.now() };
    await db.insert(service_messages).values(row);
    await expect(db.insert(service_messages).values(row)).rejects.toThrow();
    // The same client id on the other side is another message.
    await db.insert(service_messages).values({ ...row, author: "operator", operator_id: 1 });
  });

  it("concurrent sends with repeats (a flaky network retrying) store each message once, in one order everyone sees", async () => {
    const g = await newGuest();
    const ids = Array.from({ length: 12 }, () => cid());
    // Every message sent twice at once, as a page retrying after a lost answer would.
    const answers = await Promise.all([...ids, ...ids].map((id, i) => send(g.caller, g.conversation_id, `m${i % ids.length}`, id)));
    expect(answers.every((a) => a.code === 1)).toBe(true);
    expect(answers.filter((a) => a.data.duplicate)).toHaveLength(ids.length);
    const byClient = new Map<string, number>();
    for (const a of answers) {
      const seen = byClient.get(a.data.message.client_message_id);
      if (seen !== undefined) expect(a.data.message.id).toBe(seen);
      byClient.set(a.data.message.client_message_id, a.data.message.id);
    }
    const { messages } = await history(g.caller, g.conversation_id, { limit: 50 });
    expect(messages).toHaveLength(ids.length);
    expect(new Set(messages.map((m) => m.client_message_id))).toEqual(new Set(ids));
    const order = messages.map((m) => m.id);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // The operator sees the same order.
    const op = await call("/api/admin/service/messages", { conversation_id: g.conversation_id, limit: 50 }, { token: await operatorToken() });
    expect(op.data.messages.map((m: Msg) => m.id)).toEqual(order);
  });

  it("history pages backwards with before_id and catches up with after_id, without gaps or repeats", async () => {
    const g = await newGuest();
    for (let i = 0; i < 7; i++) await send(g.caller, g.conversation_id, `n${i}`);
    const newest = await history(g.caller, g.conversation_id, { limit: 3 });
    expect(newest.messages.map((m) => m.text)).toEqual(["n4", "n5", "n6"]);
    expect(newest.has_more).toBe(true);
    const older = await history(g.caller, g.conversation_id, { limit: 3, before_id: newest.messages[0].id });
    expect(older.messages.map((m) => m.text)).toEqual(["n1", "n2", "n3"]);
    const oldest = await history(g.caller, g.conversation_id, { limit: 3, before_id: older.messages[0].id });
    expect(oldest.messages.map((m) => m.text)).toEqual(["n0"]);
    expect(oldest.has_more).toBe(false);
    const after = await history(g.caller, g.conversation_id, { after_id: older.messages[2].id });
    expect(after.messages.map((m) => m.text)).toEqual(["n4", "n5", "n6"]);
    expect((await as(g.caller)("/api/service/messages", { conversation_id: g.conversation_id, limit: 51 })).data.error).toBe("invalid_field");
  });

  it("20 messages a minute per visitor: the 21st is refused with a localized message and when to retry", async () => {
    const g = await newGuest();
    const first = cid();
    for (let i = 0; i < 20; i++) expect((await send(g.caller, g.conversation_id, `r${i}`, i === 0 ? first : cid())).code).toBe(1);
    const over = await as(g.caller)("/api/service/send", { conversation_id: g.conversation_id, client_message_id: cid(), text: "one too many", lang: "de" });
    expect(over.status).toBe(429);
    expect(over.data.error).toBe("service_rate_limited");
    expect(over.msg).toMatch(/zu schnell/);
    expect(over.data.retry_after_ms).toBeGreaterThan(0);
    expect(over.data.retry_after_ms).toBeLessThanOrEqual(60_000);
    // A resend of a stored message is not a new message: it still answers.
    expect((await send(g.caller, g.conversation_id, "r0", first)).data.duplicate).toBe(true);
    // Operators are not limited.
    expect((await opSend(g.conversation_id, "take your time")).code).toBe(1);
    expect((await history(g.caller, g.conversation_id, { limit: 50 })).messages).toHaveLength(21);
  });

  it("text limits and bad input get localized envelope errors, never a 500", async () => {
    const g = await newGuest();
    const post = as(g.caller);
    const max = "字".repeat(2000);
    expect((await send(g.caller, g.conversation_id, max)).code).toBe(1);
    const long = await send(g.caller, g.conversation_id, `${max}x`);
    expect(long.data.error).toBe("service_text_too_long");
    expect(long.msg).toContain("2000");
    expect((await send(g.caller, g.conversation_id, "   ")).data.error).toBe("service_text_empty");
    expect((await post("/api/service/send", { conversation_id: g.conversation_id, client_message_id: "short" , text: "x" })).data.error).toBe("service_client_id_invalid");
    expect((await post("/api/service/send", { conversation_id: g.conversation_id, client_message_id: "has spaces in it", text: "x" })).data.error).toBe("service_client_id_invalid");
    for (const bad of [{ conversation_id: "abc", client_message_id: cid(), text: "x" }, { conversation_id: g.conversation_id, client_message_id: cid(), text: { nested: true } }, { conversation_id: g.conversation_id, client_message_id: 12345678, text: "x" }]) {
      const r = await post("/api/service/send", bad);
      expect(r.status).toBeLessThan(500);
      expect(r.code).toBe(0);
    }
    const r = await call("/api/service/read", "not json", { headers: { cookie: g.cookie, "content-type": "application/json" } });
    expect(r.status).toBe(400);
  });

  it("sent, delivered, read: each side's messages show how far the other side got", async () => {
    const g = await newGuest();
    const mine = await send(g.caller, g.conversation_id, "are you there?");
    expect(mine.data.message.state).toBe("sent");
    const op = await operatorToken();
    // The operator fetching the history received it.
    await call("/api/admin/service/messages", { conversation_id: g.conversation_id }, { token: op });
    expect((await history(g.caller, g.conversation_id)).messages[0].state).toBe("delivered");
    await call("/api/admin/service/read", { conversation_id: g.conversation_id, up_to_id: mine.data.message.id }, { token: op });
    const seen = await history(g.caller, g.conversation_id);
    expect(seen.messages[0].state).toBe("read");
    expect(seen.conversation.peer_read_id).toBe(mine.data.message.id);
    // Unread for the visitor, and marking read never moves backwards.
    const reply = await opSend(g.conversation_id, "yes!");
    expect(reply.data.message).toMatchObject({ author: "operator", operator_name: "operator" });
    expect((await history(g.caller, g.conversation_id)).conversation.unread).toBe(1);
    await as(g.caller)("/api/service/read", { conversation_id: g.conversation_id, up_to_id: reply.data.message.id });
    const back = await as(g.caller)("/api/service/read", { conversation_id: g.conversation_id, up_to_id: 0 });
    expect(back.data.conversation.unread).toBe(0);
  });

  it("pictures: sniffed like every upload, sent by id, served only to the conversation's members and operators", async () => {
    const g = await newGuest();
    const fd = new FormData();
    fd.set("file", new File([PNG as BlobPart], "a.png", { type: "image/png" }));
    const up = await as(g.caller)("/api/service/upload", fd);
    expect(up.code, up.msg).toBe(1);
    expect(up.data.url).toBe(`/files/${up.data.upload_id}`);
    const sent = await as(g.caller)("/api/service/send", { conversation_id: g.conversation_id, client_message_id: cid(), upload_id: up.data.upload_id });
    expect(sent.data.message).toMatchObject({ text: null, image_url: up.data.url });

    expect((await page(up.data.url, { headers: { cookie: g.cookie } })).status).toBe(200);
    const other = await newGuest();
    expect((await page(up.data.url, { headers: { cookie: other.cookie } })).status).toBe(404);
    expect((await page(up.data.url)).status).toBe(404);
    expect((await page(up.data.url, { headers: { cookie: await cookieOf("operator", await operatorToken()) } })).status).toBe(200);
    // Another conversation cannot send this picture.
    const stolen = await as(other.caller)("/api/service/send", { conversation_id: other.conversation_id, client_message_id: cid(), upload_id: up.data.upload_id });
    expect(stolen.data.error).toBe("service_picture_unknown");

    const html = new FormData();
    html.set("file", new File([new TextEncoder().encode("<html><script>alert(1)</script>")], "x.png", { type: "image/png" }));
    expect((await as(g.caller)("/api/service/upload", html)).data.error).toBe("upload_not_image");
    const big = new FormData();
    big.set("file", new File([new Uint8Array(1024 * 1024 + 1)], "big.png", { type: "image/png" }));
    expect((await as(g.caller)("/api/service/upload", big)).data.error).toBe("upload_too_large");
    // Without a conversation there is nowhere to put a picture.
    expect((await call("/api/service/upload", fd)).status).toBe(404);
  });
});
