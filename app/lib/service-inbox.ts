import { useBackgroundRevalidate } from "./revalidate";
import { WebSocket as ReconnectingWebSocket } from "partysocket";
import { reconnectOptions } from "./socket-options";
import { useEffect, useRef, useState } from "react";
import { parseServerMessage } from "../../durable-objects/protocol";
import type { ServiceContext } from "./service";

/** One conversation in the console's list (docs/customer-service.md, `conversations`). */
export type InboxRow = {
  id: number;
  who: string;
  user_id: number | null;
  lang: string | null;
  status: "open" | "closed";
  assigned_operator: { id: number; account: string } | null;
  unread: number;
  last_message_preview: string;
  last_message_at_ms: number | null;
  contexts: ServiceContext[];
};

export const INBOX_FILTERS = ["open", "mine", "unassigned", "closed"] as const;
export type InboxFilter = (typeof INBOX_FILTERS)[number];

/** Reload the list this long after the last change, so a burst of messages costs one reload. */
const RELOAD_AFTER_MS = 1200;

/**
 * The operator's live list: `/ws/service/inbox` says which conversation changed; the row's
 * unread count, time and status change at once, and the list reloads shortly after for the
 * preview text, the order and conversations that are new to it.
 */
export function useInbox(rows: InboxRow[]) {
  const [live, setLive] = useState(rows);
  const [connected, setConnected] = useState(false);
  const background = useBackgroundRevalidate();
  const reload = useRef(background);
  reload.current = background;
  useEffect(() => setLive(rows), [rows]);

  useEffect(() => {
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/service/inbox`;
    const ws = new ReconnectingWebSocket(url, [], reconnectOptions());
    let timer: ReturnType<typeof setTimeout> | undefined;
    const later = () => {
      clearTimeout(timer);
      timer = setTimeout(() => reload.current(), RELOAD_AFTER_MS);
    };
    let opened = 0;
    ws.addEventListener("open", () => {
      setConnected(true);
      // After a reconnect, whatever changed meanwhile: reload once.
      if (opened++ > 0) later();
    });
    ws.addEventListener("close", () => setConnected(false));
    ws.addEventListener("message", (event) => {
      const m = parseServerMessage(event.data);
      if (!m || m.type !== "inbox") return;
      setLive((now) =>
        now.map((r) =>
          r.id === m.conversation_id
            ? { ...r, unread: m.unread, last_message_at_ms: m.last_message_at_ms, status: m.status, assigned_operator: m.assigned_operator_id === null ? null : r.assigned_operator?.id === m.assigned_operator_id ? r.assigned_operator : { id: m.assigned_operator_id, account: "" } }
            : r,
        ),
      );
      later();
    });
    return () => {
      clearTimeout(timer);
      ws.close();
    };
  }, []);

  return { rows: live, connected };
}
