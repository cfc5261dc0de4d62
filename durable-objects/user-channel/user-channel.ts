import { DurableObject } from "cloudflare:workers";
import { encode, parseClientMessage, type ServerMessage } from "../protocol";

/**
 * One per user: the pages the user has open connect here (hibernating WebSockets, so idle
 * connections cost nothing) and hear about their own balance changes, order countdowns and
 * results. The Worker authenticates the upgrade before it reaches this object.
 */
export class UserChannel extends DurableObject {
  async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket", { status: 426 });
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    server.send(encode({ type: "hello", server_time_ms: Date.now() }));
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Called by the Worker (RPC) after something changed for this user. */
  async publish(message: ServerMessage): Promise<number> {
    return this.publishAll([message]);
  }

  /** Several notices in one call (a settlement tells each owner an order result and a balance). */
  async publishAll(messages: ServerMessage[]): Promise<number> {
    return this.send(messages, null);
  }

  /** Sends to every open page of the user but `except`; answers how many got it. */
  private send(messages: ServerMessage[], except: WebSocket | null): number {
    const texts = messages.map(encode);
    let delivered = 0;
    for (const ws of this.ctx.getWebSockets()) {
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


  async webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer) {
    const message = parseClientMessage(raw);
    if (!message) return ws.close(1003, "unsupported message");
    if (message.type === "ping") ws.send(encode({ type: "pong", server_time_ms: Date.now() }));
    // Only to the user's own other pages: nothing reaches anyone else from here.
    if (message.type === "changed") this.send([{ type: "balance", reason: message.reason }], ws);
  }

  async webSocketClose(ws: WebSocket, code: number) {
    // 1005/1006 are reserved and may not be sent back; answer them with a normal close.
    ws.close(code === 1005 || code === 1006 ? 1000 : code, "bye");
  }

  async webSocketError(ws: WebSocket) {
    ws.close(1011, "error");
  }
}
