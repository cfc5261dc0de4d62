import { useRevalidator } from "@remix-run/react";
import { WebSocket as ReconnectingWebSocket } from "partysocket";
import { useEffect, useRef } from "react";
import { encode, parseServerMessage } from "../../durable-objects/protocol";
import { askNoticeCounts, setNoticeCounts } from "./notice-unread";
import { serviceChannelConnected, setServiceUnread } from "./service-unread";

/**
 * Keeps the signed-in user's pages live: a reconnecting WebSocket to their channel
 * (`/ws/user`). When the balance changes, the page reloads its data from the API, so what is
 * shown always comes from the ledger. Also tracks the server clock offset for countdowns.
 */
export const serverClock = { offset_ms: 0 };

let openSocket: ReconnectingWebSocket | null = null;

/** This page changed the user's money: the user's other open pages reload their balance. */
export function announceChange(reason: "trade") {
  if (openSocket?.readyState === ReconnectingWebSocket.OPEN) openSocket.send(encode({ type: "changed", reason }));
}

export function useUserChannel(signedIn: boolean) {
  const revalidator = useRevalidator();
  const revalidate = useRef(revalidator.revalidate);
  revalidate.current = revalidator.revalidate;
  useEffect(() => {
    if (!signedIn) return;
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/user`;
    const socket = new ReconnectingWebSocket(url, [], { maxRetries: Infinity, minReconnectionDelay: 500, maxReconnectionDelay: 10_000 });
    socket.addEventListener("message", (event) => {
      const message = parseServerMessage(event.data);
      if (!message) return;
      if (message.type === "hello" || message.type === "pong") serverClock.offset_ms = message.server_time_ms - Date.now();
      if (message.type === "hello") {
        serviceChannelConnected();
        askNoticeCounts();
      }
      if (message.type === "balance") revalidate.current();
      // An operator wrote: the me tab's badge (app/components/nav.tsx).
      if (message.type === "service") setServiceUnread(message.unread);
      // The notification centre changed: the badge and the bell (app/lib/notice-unread.ts).
      if (message.type === "notice") {
        if (message.unread !== undefined && message.badge !== undefined) setNoticeCounts({ unread: message.unread, badge: message.badge });
        else askNoticeCounts();
      }
    });
    openSocket = socket;
    return () => {
      if (openSocket === socket) openSocket = null;
      socket.close();
    };
  }, [signedIn]);
}
