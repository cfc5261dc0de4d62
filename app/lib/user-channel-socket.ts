import { WebSocket as ReconnectingWebSocket } from "partysocket";
import { reconnectOptions } from "./socket-options";
import { encode, parseServerMessage, SESSION_ENDED_CLOSE } from "../../durable-objects/protocol";
import { askNoticeCounts, setNoticeCounts } from "./notice-unread";
import { serviceChannelConnected, setServiceUnread } from "./service-unread";
import { serverClock, userChannel } from "./user-channel-state";

/**
 * The signed-in user's channel socket (loaded by app/lib/use-user-channel.ts only when someone
 * is signed in). `revalidate` reloads the page's data when the balance changed. Answers how to
 * close it.
 */
export function openUserChannel(revalidate: () => void): () => void {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/user`;
  const socket = new ReconnectingWebSocket(url, [], reconnectOptions());
  socket.addEventListener("message", (event) => {
    const message = parseServerMessage(event.data);
    if (!message) return;
    if (message.type === "hello" || message.type === "pong") serverClock.offset_ms = message.server_time_ms - Date.now();
    if (message.type === "hello") {
      serviceChannelConnected();
      askNoticeCounts();
    }
    if (message.type === "balance") revalidate();
    // An operator wrote: the me tab's badge (app/components/nav.tsx).
    if (message.type === "service") setServiceUnread(message.unread);
    // The notification centre changed: the badge and the bell (app/lib/notice-unread.ts).
    if (message.type === "notice") {
      if (message.unread !== undefined && message.badge !== undefined) setNoticeCounts({ unread: message.unread, badge: message.badge });
      else askNoticeCounts();
    }
  });

  // The session ended (signed out elsewhere, or by an operator; decision 119): no reconnecting,
  // the page's data loads again and shows it signed out.
  socket.addEventListener("close", (event) => {
    if (event.code !== SESSION_ENDED_CLOSE) return;
    socket.close();
    revalidate();
  });

  userChannel.send = (message) => {
    if (socket.readyState === ReconnectingWebSocket.OPEN) socket.send(encode(message));
  };
  return () => {
    userChannel.send = null;
    socket.close();
  };
}
