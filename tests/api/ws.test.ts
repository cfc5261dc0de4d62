import { describe, expect, it } from "vitest";
import { parseServerMessage, type ServerMessage } from "../../durable-objects/protocol";
import { userCookie } from "../../worker/session-cookie";
import { notifyUser } from "../../durable-objects/user-channel/channel-api";
import { newUser, page, testEnv } from "./helpers";

async function cookieFor(token: string) {
  return (await userCookie.serialize(token)).split(";")[0];
}

/** Opens /ws/user through the whole Worker and collects what the channel sends. */
async function connect(headers: Record<string, string>) {
  const res = await page("/ws/user", { headers: { upgrade: "websocket", ...headers } });
  const ws = res.webSocket;
  if (!ws) return { res, ws: null, messages: [] as ServerMessage[], next: async () => null };
  const messages: ServerMessage[] = [];
  const waiters: ((m: ServerMessage) => void)[] = [];
  ws.accept();
  ws.addEventListener("message", (e) => {
    const m = parseServerMessage(e.data);
    if (!m) return;
    const w = waiters.shift();
    if (w) w(m);
    else messages.push(m);
  });
  const next = () => (messages.length ? Promise.resolve(messages.shift()!) : new Promise<ServerMessage>((r) => waiters.push(r)));
  return { res, ws, messages, next };
}

describe("/ws/user", () => {
  it("says hello with the server time, answers ping, and carries balance notices", async () => {
    const u = await newUser();
    const c = await connect({ cookie: await cookieFor(u.token), origin: "http://127.0.0.1" });
    expect(c.res.status).toBe(101);
    const hello = await c.next();
    expect(hello?.type).toBe("hello");
    c.ws!.send(JSON.stringify({ type: "ping" }));
    expect((await c.next())?.type).toBe("pong");
    await notifyUser(testEnv, u.id, { type: "balance", reason: "deposit" });
    expect(await c.next()).toEqual({ type: "balance", reason: "deposit" });
    c.ws!.close(1000, "done");
  });

  it("only the user's own pages hear their notices", async () => {
    const a = await newUser();
    const b = await newUser();
    const ca = await connect({ cookie: await cookieFor(a.token) });
    const cb = await connect({ cookie: await cookieFor(b.token) });
    await ca.next();
    await cb.next();
    await notifyUser(testEnv, a.id, { type: "balance", reason: "x" });
    expect(await ca.next()).toEqual({ type: "balance", reason: "x" });
    cb.ws!.send(JSON.stringify({ type: "ping" }));
    expect((await cb.next())?.type).toBe("pong"); // nothing else arrived before the pong
    ca.ws!.close(1000);
    cb.ws!.close(1000);
  });

  it("a page that changed the user's money tells the user's other pages, and no one else", async () => {
    const a = await newUser();
    const b = await newUser();
    const phone = await connect({ cookie: await cookieFor(a.token) });
    const laptop = await connect({ cookie: await cookieFor(a.token) });
    const other = await connect({ cookie: await cookieFor(b.token) });
    for (const c of [phone, laptop, other]) expect((await c.next())?.type).toBe("hello");
    phone.ws!.send(JSON.stringify({ type: "changed", reason: "trade" }));
    expect(await laptop.next()).toEqual({ type: "balance", reason: "trade" });
    // The sender and the other user hear nothing before their pong.
    for (const c of [phone, other]) {
      c.ws!.send(JSON.stringify({ type: "ping" }));
      expect((await c.next())?.type).toBe("pong");
    }
    // Only the known reasons: anything else is outside the protocol.
    phone.ws!.send(JSON.stringify({ type: "changed", reason: "<script>" }));
    const closed = await new Promise<number>((r) => phone.ws!.addEventListener("close", (e) => r(e.code)));
    expect(closed).toBe(1003);
    for (const c of [laptop, other]) c.ws!.close(1000);
  });

  it("refuses an upgrade without a valid session, or from another site", async () => {
    expect((await page("/ws/user", { headers: { upgrade: "websocket" } })).status).toBe(401);
    const u = await newUser();
    const cross = await page("/ws/user", { headers: { upgrade: "websocket", cookie: await cookieFor(u.token), origin: "https://evil.example" } });
    expect(cross.status).toBe(403);
    expect((await page("/ws/nothing", { headers: { upgrade: "websocket" } })).status).toBe(404);
    expect((await page("/ws/user")).status).toBe(426);
  });

  it("closes on a message outside the protocol", async () => {
    const u = await newUser();
    const c = await connect({ cookie: await cookieFor(u.token) });
    await c.next();
    const closed = new Promise<number>((r) => c.ws!.addEventListener("close", (e) => r(e.code)));
    c.ws!.send("{not json");
    expect(await closed).toBe(1003);
  });
});
