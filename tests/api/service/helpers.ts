import { expect } from "vitest";
import { parseServerMessage, type ServerMessage } from "../../../durable-objects/protocol";
import { guestCookie } from "../../../worker/service-cookie";
import { userCookie } from "../../../worker/session-cookie";
import { operatorCookie } from "../../../worker/session-cookie";
import { call, page, seed, type Answer } from "../helpers";
import { operatorToken as login } from "../money/helpers";

export type Caller = { token?: string; headers?: Record<string, string> };

let cachedOperator: Promise<string> | null = null;
/** One operator login per test file (argon2 is slow on purpose). */
export function operatorToken() {
  cachedOperator ??= seed().then(() => login());
  return cachedOperator;
}

let n = 0;
/** A fresh client message id, as a page makes one per message. */
export const cid = (p = "m") => `${p}-${Date.now().toString(36)}-${++n}-abcdef`;

/** A first-time guest: opens a conversation and keeps the `pl_guest` cookie it was given. */
export async function newGuest(body: Record<string, unknown> = {}) {
  const r = await call("/api/service/open", body);
  if (r.code !== 1) throw new Error(`open: ${r.msg}`);
  const token = await guestCookie.parse(r.headers.get("set-cookie"));
  if (typeof token !== "string") throw new Error("no pl_guest cookie");
  const cookie = (await guestCookie.serialize(token)).split(";")[0];
  return { token, cookie, conversation_id: r.data.conversation.id as number, caller: { headers: { cookie } } as Caller, open: r };
}

export function as(caller: Caller) {
  return <T = any>(path: string, body?: Record<string, unknown> | FormData): Promise<Answer<T>> => call<T>(path, body, { token: caller.token, headers: caller.headers });
}

export function send(caller: Caller, conversation_id: number, text: string, client_message_id = cid()) {
  return as(caller)("/api/service/send", { conversation_id, client_message_id, text });
}

export async function opSend(conversation_id: number, text: string, client_message_id = cid("op")) {
  return call("/api/admin/service/send", { conversation_id, client_message_id, text }, { token: await operatorToken() });
}

export async function cookieOf(kind: "user" | "operator" | "guest", token: string) {
  const jar = kind === "user" ? userCookie : kind === "operator" ? operatorCookie : guestCookie;
  return (await jar.serialize(token)).split(";")[0];
}

/** Opens a WebSocket through the whole Worker and collects what arrives, skipping the hello. */
export async function socket(path: string, cookie: string) {
  const res = await page(path, { headers: { upgrade: "websocket", cookie, origin: "http://127.0.0.1" } });
  const ws = res.webSocket;
  const queue: ServerMessage[] = [];
  const waiters: ((m: ServerMessage) => void)[] = [];
  let closed: number | null = null;
  const onClose: ((code: number) => void)[] = [];
  if (ws) {
    ws.accept();
    ws.addEventListener("message", (e) => {
      const m = parseServerMessage(e.data);
      if (!m) return;
      const w = waiters.shift();
      if (w) w(m);
      else queue.push(m);
    });
    ws.addEventListener("close", (e) => {
      closed = e.code;
      onClose.forEach((f) => f(e.code));
    });
  }
  const next = (ms = 5000) =>
    queue.length
      ? Promise.resolve(queue.shift()!)
      : new Promise<ServerMessage>((resolve, reject) => {
          const t = setTimeout(() => reject(new Error("no message in time")), ms);
          waiters.push((m) => {
            clearTimeout(t);
            resolve(m);
          });
        });
  /** The next message of a type, skipping others (pongs, read receipts). */
  const nextOf = async <K extends ServerMessage["type"]>(type: K): Promise<Extract<ServerMessage, { type: K }>> => {
    for (;;) {
      const m = await next();
      if (m.type === type) return m as Extract<ServerMessage, { type: K }>;
    }
  };
  if (ws) expect((await next()).type).toBe("hello");
  const closedWith = () => (closed !== null ? Promise.resolve(closed) : new Promise<number>((r) => onClose.push(r)));
  return { res, ws, next, nextOf, queue, closedWith, send: (m: unknown) => ws!.send(JSON.stringify(m)), close: () => ws?.close(1000) };
}
