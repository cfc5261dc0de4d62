import { DurableObject } from "cloudflare:workers";
import { answerPage, closeBack, closeEndedSessions, openPage, sendAll, sessionTags } from "../page-sockets";
import type { EndedSessions } from "../page-socket-api";
import type { ServerMessage } from "../protocol";
import type { UserChannelApi } from "./channel-api";

/**
 * One per user: the pages the user has open connect here (hibernating WebSockets, so idle
 * connections cost nothing) and hear about their own balance changes, order countdowns and
 * results. The Worker authenticates the upgrade before it reaches this object.
 */
export class UserChannel extends DurableObject implements UserChannelApi {
  async fetch(request: Request): Promise<Response> {
    // Tagged with the session it opened under, so it closes when that session ends.
    return openPage(this.ctx, request, Date.now(), undefined, sessionTags(request));
  }

  /** Called by the Worker (RPC) after something changed for this user. */
  async publish(message: ServerMessage): Promise<number> {
    return this.publishAll([message]);
  }

  /** Several notices in one call (a settlement tells each owner an order result and a balance); answers how many pages got them. */
  async publishAll(messages: ServerMessage[]): Promise<number> {
    return sendAll(this.ctx.getWebSockets(), messages);
  }

  /** Some of the user's sessions ended: their pages' sockets close (decision 119). Answers how many. */
  async closeSessions(which: EndedSessions): Promise<number> {
    return closeEndedSessions(this.ctx, this.ctx.getWebSockets(), which);
  }

  async webSocketMessage(ws: WebSocket, raw: string | ArrayBuffer) {
    const message = answerPage(ws, raw, Date.now());
    // Only to the user's own other pages: nothing reaches anyone else from here.
    if (message?.type === "changed") sendAll(this.ctx.getWebSockets(), [{ type: "balance", reason: message.reason }], ws);
  }

  async webSocketClose(ws: WebSocket, code: number) {
    closeBack(ws, code);
  }

  async webSocketError(ws: WebSocket) {
    ws.close(1011, "error");
  }
}
