import { describe, expect, it } from "vitest";
import { call, newUser } from "../helpers";
import { as, cid, cookieOf, newGuest, operatorToken, opSend, send, socket } from "./helpers";

const opCookie = async () => cookieOf("operator", await operatorToken());

describe("customer service sockets", () => {
  it("the visitor's page hears the operator's message live, and the operator's page the visitor's", async () => {
    const g = await newGuest();
    const visitor = await socket(`/ws/service/${g.conversation_id}`, g.cookie);
    const operator = await socket(`/ws/service/${g.conversation_id}?as=operator`, await opCookie());
    expect(visitor.res.status).toBe(101);
    expect(operator.res.status).toBe(101);
    const sent = await send(g.caller, g.conversation_id, "hello?");
    const atOperator = await operator.nextOf("message");
    expect(atOperator.message).toMatchObject({ id: sent.data.message.id, text: "hello?", author: "visitor" });
    // The author's own pages hear it too (another tab), deduped by id.
    expect((await visitor.nextOf("message")).message.id).toBe(sent.data.message.id);
    const reply = await opSend(g.conversation_id, "hi, how can I help?");
    expect((await visitor.nextOf("message")).message).toMatchObject({ id: reply.data.message.id, author: "operator", operator_name: "operator" });
    visitor.close();
    operator.close();
  });

  it("reconnecting loses and duplicates nothing: after_id gives exactly what was missed, resends make no second event", async () => {
    const g = await newGuest();
    const first = await socket(`/ws/service/${g.conversation_id}`, g.cookie);
    const m1 = await opSend(g.conversation_id, "one");
    const got = (await first.nextOf("message")).message;
    expect(got.id).toBe(m1.data.message.id);
    first.close();
    // Offline: two messages arrive, and the operator's page retries one of them.
    const id2 = cid("op");
    const m2 = await opSend(g.conversation_id, "two", id2);
    await opSend(g.conversation_id, "two", id2);
    const m3 = await opSend(g.conversation_id, "three");
    const second = await socket(`/ws/service/${g.conversation_id}`, g.cookie);
    const missed = await as(g.caller)("/api/service/messages", { conversation_id: g.conversation_id, after_id: got.id });
    expect(missed.data.messages.map((m: { id: number }) => m.id)).toEqual([m2.data.message.id, m3.data.message.id]);
    // A retry of a stored message is no new event: the next one the page hears is the next message.
    await opSend(g.conversation_id, "three", m3.data.message.client_message_id);
    const m4 = await opSend(g.conversation_id, "four");
    expect((await second.nextOf("message")).message.id).toBe(m4.data.message.id);
    second.close();
  });

  it("typing goes to the other side only; read receipts reach both sides and are recorded", async () => {
    const g = await newGuest();
    const visitor = await socket(`/ws/service/${g.conversation_id}`, g.cookie);
    const operator = await socket(`/ws/service/${g.conversation_id}?as=operator`, await opCookie());
    visitor.send({ type: "typing", typing: true });
    expect(await operator.nextOf("typing")).toEqual({ type: "typing", from: "visitor", typing: true });
    // The typist hears no echo: the next thing it gets is its pong.
    visitor.send({ type: "ping" });
    expect((await visitor.next()).type).toBe("pong");

    const reply = await opSend(g.conversation_id, "read me");
    await visitor.nextOf("message");
    await operator.nextOf("message");
    visitor.send({ type: "read", state: "read", up_to_id: reply.data.message.id });
    expect(await operator.nextOf("read")).toEqual({ type: "read", reader: "visitor", state: "read", up_to_id: reply.data.message.id });
    const mine = await call("/api/admin/service/messages", { conversation_id: g.conversation_id }, { token: await operatorToken() });
    expect(mine.data.messages.at(-1).state).toBe("read");
    // A receipt beyond the last message is capped at it.
    visitor.send({ type: "read", state: "read", up_to_id: 10 ** 12 });
    expect((await operator.nextOf("read")).up_to_id).toBe(reply.data.message.id);
    // Anything outside the protocol closes the socket.
    visitor.send({ type: "message", text: "sockets do not carry messages" });
    expect(await visitor.closedWith()).toBe(1003);
    operator.close();
  });

  it("only members and operators connect: another guest, another user, a user posing as operator, nobody", async () => {
    const g = await newGuest();
    const other = await newGuest();
    const u = await newUser();
    for (const cookie of [other.cookie, await cookieOf("user", u.token), ""]) {
      const s = await socket(`/ws/service/${g.conversation_id}`, cookie);
      expect(s.res.status).toBe(404);
    }
    expect((await socket(`/ws/service/${g.conversation_id}?as=operator`, await cookieOf("user", u.token))).res.status).toBe(401);
    expect((await socket(`/ws/service/inbox`, g.cookie)).res.status).toBe(401);
    expect((await socket(`/ws/service/abc`, g.cookie)).res.status).toBe(404);
  });

  it("a hand-over closes the guest's pages; the user reconnects with their session", async () => {
    const g = await newGuest();
    const guestPage = await socket(`/ws/service/${g.conversation_id}`, g.cookie);
    const u = await newUser();
    const login = await call("/api/user/login", { account: u.account, password: u.password }, { headers: { cookie: g.cookie } });
    expect(login.code).toBe(1);
    expect(await guestPage.closedWith()).toBe(4000);
    expect((await socket(`/ws/service/${g.conversation_id}`, g.cookie)).res.status).toBe(404);
    const userPage = await socket(`/ws/service/${g.conversation_id}`, await cookieOf("user", login.data.userinfo.token));
    expect(userPage.res.status).toBe(101);
    userPage.close();
  });

  it("the inbox hears every change; the user's own channel hears the operator's messages (me-tab badge)", async () => {
    const u = await newUser();
    const id = (await as({ token: u.token })("/api/service/open", {})).data.conversation.id;
    const inbox = await socket("/ws/service/inbox", await opCookie());
    const channel = await socket("/ws/user", await cookieOf("user", u.token));
    const first = await send({ token: u.token }, id, "ping the console");
    const change = await inbox.nextOf("inbox");
    expect(change).toMatchObject({ conversation_id: id, unread: 1, status: "open", assigned_operator_id: null });
    await send({ token: u.token }, id, "and again");
    expect((await inbox.nextOf("inbox")).unread).toBe(2);
    // An operator reading the first of them leaves one unread.
    await call("/api/admin/service/read", { conversation_id: id, up_to_id: first.data.message.id }, { token: await operatorToken() });
    expect((await inbox.nextOf("inbox")).unread).toBe(1);
    await opSend(id, "answer 1");
    await opSend(id, "answer 2");
    expect(await channel.nextOf("service")).toEqual({ type: "service", unread: 1 });
    expect(await channel.nextOf("service")).toEqual({ type: "service", unread: 2 });
    inbox.close();
    channel.close();
  });
});
