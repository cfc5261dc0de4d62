import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../worker/env";
import { answerPage, closeBack, openPage, sendAll } from "../page-sockets";
import type { ServerMessage } from "../protocol";
import type { ServiceInboxApi } from "./conversation-api";

/**
 * One for all operators: the console's inbox pages connect here (hibernating WebSockets) and
 * hear `inbox` whenever a conversation changes. The Worker lets only operators upgrade.
 */
export class ServiceInbox extends DurableObject<Env> implements ServiceInboxApi {
  async fetch(request: Request): Promise<Response> {
    return openPage(this.ctx, request, Date.now());
  }

  async publish(message: ServerMessage): Promise<number> {
    return sendAll(this.ctx.getWebSockets(), [message]);
  }

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
