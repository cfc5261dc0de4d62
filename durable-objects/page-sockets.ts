/**
 * The pages' WebSockets, as both Durable Objects serve them (hibernating, so idle connections
 * cost nothing): the upgrade with its hello, the ping answer, sending to every page, and the
 * close handshake. The Worker authenticates an upgrade before it reaches an object.
 */
import { encode, PAGE_FRAME_MAX, parseClientMessage, refusalClose, SESSION_ENDED_CLOSE, type ClientMessage, type ServerMessage } from "./protocol";
import { SESSION_HEADER, type EndedSessions } from "./page-socket-api";

export type PageSocket = Pick<WebSocket, "send" | "close">;

/**
 * Accepts a page's WebSocket: the page hears `hello` (its clock reference) first, then what
 * `greeting` gives. Anything but an upgrade is answered 426. `tags` let the object find it again.
 */
export async function openPage(
  ctx: DurableObjectState,
  request: Request,
  now: number,
  greeting: () => Promise<ServerMessage | null> = async () => null,
  tags: string[] = [],
): Promise<Response> {
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket", { status: 426 });
  const { 0: client, 1: server } = new WebSocketPair();
  ctx.acceptWebSocket(server, tags);
  server.send(encode({ type: "hello", server_time_ms: now }));
  const next = await greeting();
  if (next) server.send(encode(next));
  return new Response(null, { status: 101, webSocket: client });
}

/** Sends the messages to every page but `except`; answers how many pages got them. */
export function sendAll(sockets: Iterable<PageSocket>, messages: readonly ServerMessage[], except: PageSocket | null = null): number {
  const texts = messages.map(encode);
  let delivered = 0;
  for (const ws of sockets) {
    if (ws === except) continue;
    try {
      for (const text of texts) ws.send(text);
      delivered += 1;
    } catch {
      // A socket closing at this moment: its close handler cleans up.
    }
  }
  return delivered;
}

/**
 * A page's message, checked: a ping is answered here, anything malformed or too big closes the
 * socket (null) with the code that says which. The object handles the rest.
 */
export function answerPage(ws: PageSocket, raw: string | ArrayBuffer, now: number): ClientMessage | null {
  const message = parseClientMessage(raw);
  if (!message) {
    const close = refusalClose(raw, PAGE_FRAME_MAX);
    ws.close(close.code, close.reason);
    return null;
  }
  if (message.type === "ping") ws.send(encode({ type: "pong", server_time_ms: now }));
  return message;
}

/** Closes back a socket the page closed; 1005/1006 are reserved and may not be sent back. */
export function closeBack(ws: PageSocket, code: number) {
  ws.close(code === 1005 || code === 1006 ? 1000 : code, "bye");
}

const sessionTag = (token_hash: string) => `session:${token_hash}`;

/** The tags of a socket opened by `request`: its session's, when the Worker named one. */
export function sessionTags(request: Request): string[] {
  const token_hash = request.headers.get(SESSION_HEADER);
  return token_hash && /^[0-9a-f]{64}$/.test(token_hash) ? [sessionTag(token_hash)] : [];
}

/**
 * Closes, among `sockets`, those opened under the ended sessions (4401: the page stops
 * reconnecting and reloads as signed out). Answers how many it closed.
 */
export function closeEndedSessions(ctx: DurableObjectState, sockets: WebSocket[], which: EndedSessions): number {
  const ended = (ws: WebSocket) => {
    if ("all" in which) return true;
    const tags = ctx.getTags(ws);
    return "token_hash" in which ? tags.includes(sessionTag(which.token_hash)) : !tags.includes(sessionTag(which.all_but));
  };
  let closed = 0;
  for (const ws of sockets) {
    if (!ended(ws)) continue;
    try {
      ws.close(SESSION_ENDED_CLOSE, "session ended");
      closed += 1;
    } catch {
      // Already closing.
    }
  }
  return closed;
}
