import { useFetcher } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { networkFailureText, type PageEnvelope } from "../../lib/use-envelope";
import type { Conversation, Pending, ServiceMessage, ThreadAction } from "../../lib/service";
import type { SocketSend } from "../../lib/service-chat";
import { PendingBubble } from "./bubble";

type Sent = { message: ServiceMessage; duplicate: boolean; conversation?: Conversation };
type Uploaded = { upload_id: string; url: string; conversation?: Conversation };

/** A message sent over the socket and not echoed by then goes over REST too (same id: stored once). */
const SOCKET_ECHO_WAIT_MS = 5_000;

/**
 * Delivers one message the viewer wrote: a picture is uploaded first (through the page's
 * action), then the message is sent with the client_message_id it was given when typed, over
 * the conversation's socket when it is open (the echo with that id confirms it, a `send_error`
 * fails it), else, or when no echo came in time, through the page's action. A retry sends the
 * same id (and reuses an upload that already succeeded), so the server keeps one copy.
 */
export function PendingSender({ pending, conversationId, dispatch, onConversation, locale, socketSend }: {
  pending: Pending;
  conversationId: number | null;
  dispatch: (action: ThreadAction) => void;
  onConversation: (c: Conversation) => void;
  locale: string;
  socketSend?: SocketSend;
}) {
  const { t } = useTranslation();
  const upload = useFetcher<PageEnvelope<Uploaded>>();
  const send = useFetcher<PageEnvelope<Sent>>();
  const uploadId = useRef<string | null>(null);
  const handled = useRef<unknown>(null);
  const cid = pending.client_message_id;
  const conversation = useRef(conversationId);
  conversation.current = conversationId;

  const echoWait = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(echoWait.current), []);

  function submitSend() {
    // A new conversation is opened by the page's action; after that the socket carries messages.
    const body = uploadId.current ? { client_message_id: cid, upload_id: uploadId.current } : { client_message_id: cid, text: pending.text ?? "" };
    if (conversation.current !== null && socketSend?.(body)) {
      clearTimeout(echoWait.current);
      echoWait.current = setTimeout(submitRest, SOCKET_ECHO_WAIT_MS);
      return;
    }
    submitRest();
  }

  function submitRest() {
    const form = new FormData();
    form.set("intent", "send");
    form.set("conversation_id", conversation.current === null ? "" : String(conversation.current));
    form.set("client_message_id", cid);
    if (uploadId.current) form.set("upload_id", uploadId.current);
    else form.set("text", pending.text ?? "");
    send.submit(form, { method: "post" });
  }

  function submitUpload(file: File) {
    const form = new FormData();
    form.set("intent", "upload");
    form.set("conversation_id", conversation.current === null ? "" : String(conversation.current));
    form.set("file", file);
    upload.submit(form, { method: "post", encType: "multipart/form-data" });
  }

  // Start (and start again after a retry): upload the picture unless it is already up, then send.
  useEffect(() => {
    // Refused over the socket: no REST fallback for this attempt (the bubble offers a retry).
    if (pending.failed !== null) return clearTimeout(echoWait.current);
    if (pending.file && !uploadId.current) submitUpload(pending.file);
    else submitSend();
    // Only a new attempt (failed → null) starts work; the fetchers' own answers drive the rest.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pending.failed]);

  const failure = (answer: PageEnvelope<unknown>) => (answer.network ? networkFailureText(answer, t) : answer.msg || t("toast_error"));

  useEffect(() => {
    const answer = upload.data;
    if (upload.state !== "idle" || !answer || handled.current === answer) return;
    handled.current = answer;
    if (answer.code !== 1 || !answer.data) return dispatch({ type: "failed", client_message_id: cid, error: failure(answer) });
    uploadId.current = answer.data.upload_id;
    if (answer.data.conversation) {
      // The upload opened the conversation: the send that follows goes to it.
      conversation.current = answer.data.conversation.id;
      onConversation(answer.data.conversation);
    }
    submitSend();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [upload.data, upload.state]);

  useEffect(() => {
    const answer = send.data;
    if (send.state !== "idle" || !answer || handled.current === answer) return;
    handled.current = answer;
    if (answer.code !== 1 || !answer.data) return dispatch({ type: "failed", client_message_id: cid, error: failure(answer) });
    if (answer.data.conversation) onConversation(answer.data.conversation);
    dispatch({ type: "merge", messages: [answer.data.message] });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [send.data, send.state]);

  return (
    <PendingBubble
      pending={pending}
      locale={locale}
      onRetry={() => dispatch({ type: "retry", client_message_id: cid })}
      onDiscard={() => {
        if (pending.image_url) URL.revokeObjectURL(pending.image_url);
        dispatch({ type: "discard", client_message_id: cid });
      }}
    />
  );
}
