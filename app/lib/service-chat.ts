import { useFetcher } from "@remix-run/react";
import { WebSocket as ReconnectingWebSocket } from "partysocket";
import { reconnectOptions } from "./socket-options";
import { useOnceEach } from "./use-once-each";
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { encode, parseServerMessage, SESSION_ENDED_CLOSE } from "../../durable-objects/protocol";
import { emptyThread, lastId, lastPeerId, oldestId, threadReducer, type Conversation, type ServiceMessage, type Side } from "./service";

/** A page of history as the page loaders answer it (`?before_id=` or `?after_id=`). */
export type HistoryPage = { page: { messages: ServiceMessage[]; has_more: boolean } | null; error?: string };

type Options = {
  viewer: Side;
  conversation: Conversation | null;
  initial: ServiceMessage[];
  has_more: boolean;
  /** The page's own URL plus its query, for history loads (`/admin/service?id=3`). */
  historyUrl: (params: Record<string, string>) => string;
  /** A guest's conversation was handed to their account: reload as the signed-in user. */
  onHandedOver?: () => void;
  /** The page's language: a message the socket refuses is explained in it. */
  lang?: string;
};

/** A message for the conversation's socket: `send` it, with the id it was given when typed. */
export type SocketSend = (message: { client_message_id: string; text?: string; upload_id?: string }) => boolean;

/** A typing indicator dies on its own if its "stopped" never arrives (closed tab, lost frame). */
const TYPING_TTL_MS = 6000;

/**
 * One conversation, live: the merged thread, the socket (partysocket reconnects with backoff),
 * catch-up after every (re)connect by `after_id`, earlier pages on demand, read receipts while
 * the page is visible, and the typing signal both ways.
 */
export function useServiceChat(opts: Options) {
  const { viewer, conversation } = opts;
  const [thread, dispatch] = useReducer(threadReducer, undefined, () => emptyThread(conversation, opts.initial, opts.has_more));
  const threadRef = useRef(thread);
  threadRef.current = thread;
  const historyUrl = useRef(opts.historyUrl);
  historyUrl.current = opts.historyUrl;
  const handedOver = useRef(opts.onHandedOver);
  handedOver.current = opts.onHandedOver;

  const earlier = useFetcher<HistoryPage>();
  const catchUp = useFetcher<HistoryPage>();
  // "lost" only after a socket closed: a first connection in progress is not an outage.
  const [link, setLink] = useState<"connecting" | "open" | "lost">("connecting");
  const connected = link === "open";
  const socketRef = useRef<ReconnectingWebSocket | null>(null);
  const conversationId = conversation?.id ?? null;

  const send = useCallback((message: Parameters<typeof encode>[0]) => {
    const ws = socketRef.current;
    if (ws?.readyState !== ReconnectingWebSocket.OPEN) return false;
    ws.send(encode(message));
    return true;
  }, []);
  /** Sends a message over the socket when it is open (its echo confirms it); false: the caller uses REST. */
  const sendMessage = useCallback<SocketSend>((m) => send({ type: "send", ...m }), [send]);

  useSocket(conversationId, viewer, opts.lang ?? "", dispatch, setLink, socketRef, () => {
    catchUp.load(historyUrl.current({ after_id: String(lastId(threadRef.current)) }));
  }, () => handedOver.current?.());

  // Catch-up pages forward until nothing newer is left; merging dedupes by id.
  useFetched(catchUp, (page) => {
    dispatch({ type: "merge", messages: page.messages });
    if (page.has_more && page.messages.length) catchUp.load(historyUrl.current({ after_id: String(page.messages[page.messages.length - 1].id) }));
  });
  useFetched(earlier, (page) => dispatch({ type: "merge", messages: page.messages, has_more: page.has_more }));

  const loadEarlier = useCallback(() => {
    const before = oldestId(threadRef.current);
    if (before !== null) earlier.load(historyUrl.current({ before_id: String(before) }));
  }, [earlier]);

  useReadReceipts(thread.messages, viewer, connected, send);
  const typing = useTypingSignal(send);

  return { thread, dispatch, connected, reconnecting: link === "lost", loadEarlier, loadingEarlier: earlier.state !== "idle", typing, sendMessage };
}

/** Runs `use` once for each page a history fetcher brings back. */
function useFetched(fetcher: ReturnType<typeof useFetcher<HistoryPage>>, use: (page: NonNullable<HistoryPage["page"]>) => void) {
  const data = fetcher.data;
  useOnceEach(fetcher.state === "idle" && data?.page ? data : undefined, (answer) => use(answer.page!));
}

function socketUrl(path: string): string {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${path}`;
}

function useSocket(
  conversationId: number | null,
  viewer: Side,
  lang: string,
  dispatch: React.Dispatch<Parameters<typeof threadReducer>[1]>,
  setLink: (link: "open" | "lost") => void,
  socketRef: React.MutableRefObject<ReconnectingWebSocket | null>,
  onOpen: () => void,
  onHandedOver: () => void,
) {
  const opened = useRef(onOpen);
  opened.current = onOpen;
  const handed = useRef(onHandedOver);
  handed.current = onHandedOver;
  useEffect(() => {
    if (conversationId === null) return;
    // An operator says so (`?as=operator`): a browser may carry both a user's and an operator's cookie.
    const query = new URLSearchParams(viewer === "operator" ? { as: "operator" } : {});
    if (lang) query.set("lang", lang);
    const path = `/ws/service/${conversationId}?${query}`;
    const ws = new ReconnectingWebSocket(socketUrl(path), [], reconnectOptions());
    let typingTimer: ReturnType<typeof setTimeout> | undefined;
    ws.addEventListener("open", () => {
      setLink("open");
      // Whatever was written while we were away (or before this socket existed).
      opened.current();
    });
    ws.addEventListener("close", (event) => {
      setLink("lost");
      // Handed over to the signed-in account (4000), or the session it was opened under ended
      // (decision 119): no reconnecting; the page loads again as it now is.
      if (event.code === 4000 || event.code === SESSION_ENDED_CLOSE) {
        ws.close();
        handed.current();
      }
    });
    ws.addEventListener("message", (event) => {
      const message = parseServerMessage(event.data);
      if (!message) return;
      if (message.type === "message") dispatch({ type: "merge", messages: [message.message] });
      // Our own message, refused (only the sender hears this): its bubble offers retry or discard.
      else if (message.type === "send_error") dispatch({ type: "failed", client_message_id: message.client_message_id, error: message.msg });
      else if (message.type === "read" && message.reader !== viewer) {
        dispatch(message.state === "read" ? { type: "peer", read_id: message.up_to_id } : { type: "peer", delivered_id: message.up_to_id });
      } else if (message.type === "typing" && message.from !== viewer) {
        clearTimeout(typingTimer);
        dispatch({ type: "typing", typing: message.typing });
        if (message.typing) typingTimer = setTimeout(() => dispatch({ type: "typing", typing: false }), TYPING_TTL_MS);
      }
    });
    socketRef.current = ws;
    return () => {
      clearTimeout(typingTimer);
      if (socketRef.current === ws) socketRef.current = null;
      ws.close();
    };
  }, [conversationId, viewer, lang, dispatch, setLink, socketRef]);
}

/**
 * Tells the other side how far we got: "read" while the page is visible, "delivered" while
 * it is in the background. Each id is reported once per state.
 */
function useReadReceipts(messages: ServiceMessage[], viewer: Side, connected: boolean, send: (m: Parameters<typeof encode>[0]) => boolean) {
  const reported = useRef({ delivered: 0, read: 0 });
  const [visible, setVisible] = useState(true);
  useEffect(() => {
    const update = () => setVisible(document.visibilityState === "visible");
    update();
    document.addEventListener("visibilitychange", update);
    return () => document.removeEventListener("visibilitychange", update);
  }, []);
  const upTo = lastPeerId({ messages }, viewer);
  useEffect(() => {
    if (!connected) {
      // A new socket is a new session on the server side: report again after reconnecting.
      reported.current = { delivered: 0, read: 0 };
      return;
    }
    if (upTo === 0) return;
    const state = visible ? "read" : "delivered";
    if (reported.current[state] >= upTo) return;
    reported.current[state] = upTo;
    send({ type: "read", state, up_to_id: upTo });
  }, [upTo, visible, connected, send]);
}

/** "typing" once when typing starts (and every few seconds while it goes on), "stopped" after a pause or on send. */
function useTypingSignal(send: (m: Parameters<typeof encode>[0]) => boolean) {
  const last = useRef(0);
  const idle = useRef<ReturnType<typeof setTimeout>>();
  const stop = useCallback(() => {
    clearTimeout(idle.current);
    if (last.current === 0) return;
    last.current = 0;
    send({ type: "typing", typing: false });
  }, [send]);
  const typed = useCallback(() => {
    const now = Date.now();
    if (now - last.current > 3000) {
      last.current = now;
      send({ type: "typing", typing: true });
    }
    clearTimeout(idle.current);
    idle.current = setTimeout(stop, 4000);
  }, [send, stop]);
  useEffect(() => () => clearTimeout(idle.current), []);
  return { typed, stop };
}
