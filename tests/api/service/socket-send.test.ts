import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ServiceConversation } from "../../../durable-objects/service/conversation";
import { nextMessageId } from "../../../worker/domain/service/rules";
import { translate } from "../../../worker/i18n";
import { call, testEnv } from "../helpers";
import { as, cid, cookieOf, newGuest, operatorToken, opSend, send, socket } from "./helpers";

const opCookie = async () => cookieOf("operator", await operatorToken());
const inboxStub = () => testEnv.SERVICE_INBOX.get(testEnv.SERVICE_INBOX.idFromName("inbox"));
const stubOf = (conversation_id: number) => testEnv.SERVICE_CONVERSATION.get(testEnv.SERVICE_CONVERSATION.idFromName(String(conversation_id)));

async function pair(lang = "en") {
  const g = await newGuest();
  const visitor = await socket(`/ws/service/${g.conversation_id}?lang=${lang}`, g.cookie);
  const operator = await socket(`/ws/service/${g.conversation_id}?as=operator&lang=${lang}`, await opCookie());
  return { g, visitor, operator };
}

/** Nothing else is waiting for `s`: a ping's pong is the next thing it hears. */
async function nothingPending(s: Awaited<ReturnType<typeof socket>>) {
  s.send({ type: "ping" });
  expect((await s.next()).type).toBe("pong");
}

describe("customer service: sending over the conversation's socket", () => {
  it("a socket send is echoed to the sender (its acknowledgement) and delivered to the other side, in the conversation's order", async () => {
    const { g, visitor, operator } = await pair();
    const id = cid("ws");
    visitor.send({ type: "send", client_message_id: id, text: "  over the socket  " });
    const echo = (await visitor.nextOf("message")).message;
    expect(echo).toMatchObject({ client_message_id: id, text: "over the socket", author: "visitor", conversation_id: g.conversation_id });
    expect((await operator.nextOf("message")).message).toEqual(echo);
    operator.send({ type: "send", client_message_id: cid("op"), text: "answer" });
    const answer = (await visitor.nextOf("message")).message;
    expect(answer).toMatchObject({ author: "operator", operator_name: "operator", text: "answer" });
    expect(answer.id).toBeGreaterThan(echo.id);
    visitor.close();
    operator.close();
  });

  it("a resent client id, over the socket or REST in any mix, is one message: the sender gets the stored one back, the other side nothing new", async () => {
    const { g, visitor, operator } = await pair();
    const id = cid("dup");
    visitor.send({ type: "send", client_message_id: id, text: "once" });
    const first = (await visitor.nextOf("message")).message;
    await operator.nextOf("message");
    visitor.send({ type: "send", client_message_id: id, text: "once" });
    expect((await visitor.nextOf("message")).message).toEqual(first);
    const overRest = await send(g.caller, g.conversation_id, "once", id);
    expect(overRest.data).toMatchObject({ duplicate: true, message: { id: first.id } });
    // And the other way round: stored over REST, resent over the socket.
    const restId = cid("rest");
    const stored = await send(g.caller, g.conversation_id, "rest first", restId);
    expect(stored.data.duplicate).toBe(false);
    expect((await operator.nextOf("message")).message.id).toBe(stored.data.message.id);
    await visitor.nextOf("message");
    visitor.send({ type: "send", client_message_id: restId, text: "rest first" });
    expect((await visitor.nextOf("message")).message.id).toBe(stored.data.message.id);
    await nothingPending(operator);
    const history = await as(g.caller)("/api/service/messages", { conversation_id: g.conversation_id });
    expect(history.data.messages.map((m: { id: number }) => m.id)).toEqual([first.id, stored.data.message.id]);
    visitor.close();
    operator.close();
  });

  it("the visitor's 21st message in a minute is refused over the socket, to the sender only, in the socket's language", async () => {
    const { g, visitor, operator } = await pair("de");
    for (let i = 0; i < 20; i++) visitor.send({ type: "send", client_message_id: cid(`r${i}`), text: `m${i}` });
    for (let i = 0; i < 20; i++) await operator.nextOf("message");
    const over = cid("over");
    visitor.send({ type: "send", client_message_id: over, text: "one too many" });
    const refused = await visitor.nextOf("send_error");
    expect(refused).toMatchObject({ client_message_id: over, error: "service_rate_limited", msg: translate("de", "errors.service_rate_limited") });
    expect(refused.retry_after_ms).toBeGreaterThan(0);
    await nothingPending(operator);
    const history = await as(g.caller)("/api/service/messages", { conversation_id: g.conversation_id, limit: 50 });
    expect(history.data.messages).toHaveLength(20);
    // The same limit holds over REST: one sequencer.
    expect((await send(g.caller, g.conversation_id, "rest too")).status).toBe(429);
    visitor.close();
    operator.close();
  });

  it("a refused message (bad shape, closed conversation) answers its sender only", async () => {
    const { g, visitor, operator } = await pair();
    visitor.send({ type: "send", client_message_id: cid("e"), text: "   " });
    expect(await visitor.nextOf("send_error")).toMatchObject({ error: "service_text_empty", msg: translate("en", "errors.service_text_empty") });
    visitor.send({ type: "send", client_message_id: "short", text: "hi" });
    expect((await visitor.nextOf("send_error")).error).toBe("service_client_id_invalid");
    visitor.send({ type: "send", client_message_id: cid("l"), text: "x".repeat(2001) });
    expect(await visitor.nextOf("send_error")).toMatchObject({ error: "service_text_too_long", max: 2000 });
    await nothingPending(operator);
    expect((await call("/api/admin/service/close", { conversation_id: g.conversation_id }, { token: await operatorToken() })).code).toBe(1);
    await visitor.nextOf("message"); // the system message "closed"
    await operator.nextOf("message");
    const closedId = cid("c");
    operator.send({ type: "send", client_message_id: closedId, text: "too late" });
    expect(await operator.nextOf("send_error")).toMatchObject({ client_message_id: closedId, error: "service_closed" });
    await nothingPending(visitor);
    // The visitor writing reopens it, as over REST.
    visitor.send({ type: "send", client_message_id: cid("v"), text: "still there?" });
    await operator.nextOf("message");
    const detail = await call("/api/admin/service/conversation", { id: g.conversation_id }, { token: await operatorToken() });
    expect(detail.data.conversation.status).toBe("open");
    visitor.close();
    operator.close();
  });

  it("what a socket delivered is in every REST read at once: history on both sides, unread counts, kefu", async () => {
    const { g, visitor, operator } = await pair();
    const id = cid("now");
    operator.send({ type: "send", client_message_id: id, text: "read me now" });
    const got = (await visitor.nextOf("message")).message;
    const mine = await as(g.caller)("/api/service/messages", { conversation_id: g.conversation_id });
    expect(mine.data.messages.at(-1)).toMatchObject({ id: got.id, text: "read me now" });
    const theirs = await call("/api/admin/service/messages", { conversation_id: g.conversation_id }, { token: await operatorToken() });
    expect(theirs.data.messages.at(-1).id).toBe(got.id);
    const kefu = await as(g.caller)("/api/user/kefu");
    expect(kefu.data.unread).toBe(1);
    await operator.nextOf("message"); // the operator's own echo
    visitor.send({ type: "send", client_message_id: cid("v"), text: "and me" });
    const v = (await operator.nextOf("message")).message;
    const rows = await call("/api/admin/service/conversations", {}, { token: await operatorToken() });
    // The inbox list may lag by one flush; after the conversation's own read it is exact.
    const row = rows.data.items.find((r: { id: number }) => r.id === g.conversation_id);
    expect(row === undefined || row.unread <= 1).toBe(true);
    const conv = await call("/api/admin/service/conversation", { id: g.conversation_id }, { token: await operatorToken() });
    expect(conv.data.conversation.unread).toBe(1);
    expect(v.id).toBeGreaterThan(got.id);
    visitor.close();
    operator.close();
  });

  it("a message echoed but not yet in D1 is in the inbox's journal: a restarted object takes it back and writes it", async () => {
    const { g, visitor, operator } = await pair();
    visitor.send({ type: "send", client_message_id: cid("crash"), text: "after the echo" });
    const echoed = (await visitor.nextOf("message")).message as { id: number };
    // Echoed means journaled: the inbox holds the row before anyone heard of it.
    expect((await inboxStub().journaledOf(g.conversation_id)).map((r) => r.id)).toEqual([echoed.id]);
    // A restart is a new instance over the same storage (state.abort() would be the real thing,
    // but it breaks the test runner's output gate). Its flush comes before the old one's timer (1 s or more).
    await runInDurableObject(stubOf(g.conversation_id), async (_old, state) => {
      const fresh = new ServiceConversation(state, testEnv);
      await fresh.flush();
    });
    const inD1 = await testEnv.DB.prepare("SELECT text FROM service_messages WHERE id = ?").bind(echoed.id).first<{ text: string }>();
    expect(inD1?.text).toBe("after the echo");
    expect(await inboxStub().journaledOf(g.conversation_id)).toEqual([]);
    visitor.close();
    operator.close();
  });

  it("a journaled row its conversation never wrote is written by the inbox's alarm, through the conversation", async () => {
    const g = await newGuest();
    // What an object that journaled a row and stopped before writing it leaves behind.
    const id = nextMessageId(g.conversation_id, 0) + 5;
    await inboxStub().journal([{ id, conversation_id: g.conversation_id, author: "visitor", client_message_id: cid("orphan"), operator_id: null, operator_name: null, text: "left in the journal", upload_id: null, created_at_ms: Date.now() }]);
    await runInDurableObject(inboxStub(), async (_i, state) => {
      state.storage.sql.exec("UPDATE journal SET at_ms = at_ms - 60000");
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    expect(await runDurableObjectAlarm(inboxStub())).toBe(true);
    const row = await testEnv.DB.prepare("SELECT text FROM service_messages WHERE id = ?").bind(id).first<{ text: string }>();
    expect(row?.text).toBe("left in the journal");
    expect(await inboxStub().journaledOf(g.conversation_id)).toEqual([]);
    // The conversation took it as its own: the next message comes after it.
    expect((await send(g.caller, g.conversation_id, "next")).data.message.id).toBeGreaterThan(id);
  });

  it("a message whose journal write fails is refused, heard by nobody, and its id is never handed out again", async () => {
    const g = await newGuest();
    const message = (client_message_id: string) => ({ conversation_id: g.conversation_id, author: "visitor" as const, client_message_id, operator_id: null, operator_name: null, text: "hello", upload_id: null });
    const r = await runInDurableObject(stubOf(g.conversation_id), async (instance: ServiceConversation) => {
      const o = instance as unknown as { inbox(): unknown; seq: { nextId(): number; byClientId(a: string, c: string): unknown } };
      await instance.flush(g.conversation_id);
      const failedId = o.seq.nextId();
      const inbox = o.inbox;
      o.inbox = () => ({ journal: () => Promise.reject(new Error("journal down")) });
      const lost = cid("lost");
      const refused = await instance.send(message(lost)).then(() => "sent", (e: Error) => e.message);
      o.inbox = inbox;
      const forgotten = o.seq.byClientId("visitor", lost) === null;
      const next = await instance.send(message(cid("next")));
      return { refused, forgotten, failedId, next };
    });
    expect(r.refused).toBe("journal down");
    expect(r.forgotten).toBe(true);
    expect(r.next.status === "ok" && r.next.message.id).toBeGreaterThan(r.failedId);
  });
});
