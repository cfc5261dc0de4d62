/**
 * A Durable Object whose pages' sockets only ever send pings (quote hubs, quote relays, the
 * operators' inbox): a ping is answered, a close is closed back, an error closes the socket.
 * Objects whose pages send more (a conversation, the user channel) handle messages themselves.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../worker/env";
import { answerPage, closeBack } from "./page-sockets";

export abstract class PageSocketObject extends DurableObject<Env> {
  async webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer) {
    answerPage(ws, raw, Date.now());
  }

  async webSocketClose(ws: WebSocket, code: number) {
    closeBack(ws, code);
  }

  async webSocketError(ws: WebSocket) {
    ws.close(1011, "error");
  }
}
