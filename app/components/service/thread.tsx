import { useLayoutEffect, useRef, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { deliveryOf, isOwn, newClientMessageId, type Conversation, type Side, type Thread, type ThreadAction } from "../../lib/service";
import { Bubble } from "./bubble";
import { Composer, type Insert } from "./composer";
import { PendingSender } from "./pending-sender";
import type { SocketSend } from "../../lib/service-chat";

type Props = {
  viewer: Side;
  thread: Thread;
  dispatch: (action: ThreadAction) => void;
  conversationId: number | null;
  onConversation: (c: Conversation) => void;
  loadEarlier: () => void;
  loadingEarlier: boolean;
  typing: { typed: () => void; stop: () => void };
  locale: string;
  /** "window": the page scrolls (phone); "box": the list scrolls inside its pane (console). */
  scroll: "window" | "box";
  /** Shown above the composer: the conversation's context chips. */
  above?: ReactNode;
  /** Shown instead of the composer (a closed conversation in the console). */
  composer?: ReactNode;
  empty?: ReactNode;
  /** Text to put into the composer (a canned reply). */
  insert?: Insert | null;
  /** Sends over the conversation's socket while it is open (else the pending message goes over REST). */
  socketSend?: SocketSend;
};

/**
 * The messenger: earlier messages on demand at the top (the scroll position is kept), the
 * bubbles, our own messages still on their way, the other side's typing indicator, and the
 * composer. Messages from the server and optimistic ones never show twice (lib/service.ts).
 */
export function ChatThread(props: Props) {
  const { t } = useTranslation("service");
  const { thread, viewer, dispatch, locale } = props;
  const list = useRef<HTMLOListElement>(null);
  useScrollKeeper(list, props.scroll, thread);

  function write(text: string | null, file: File | null) {
    props.typing.stop();
    const image_url = file ? URL.createObjectURL(file) : null;
    dispatch({ type: "pending", pending: { client_message_id: newClientMessageId(), text, image_url, file, created_at_ms: Date.now(), failed: null } });
  }

  return (
    <div className={props.scroll === "box" ? "sv-thread sv-thread-box" : "sv-thread"}>
      <ol ref={list} className="sv-list" aria-label={t("messages_label")} aria-live="polite" aria-relevant="additions" data-testid="sv-list" data-conversation={props.conversationId ?? ""}>
        <li className="sv-earlier">
          {thread.has_more ? (
            <button type="button" className="btn btn-plain sv-earlier-btn" onClick={props.loadEarlier} disabled={props.loadingEarlier} data-testid="sv-load-earlier">
              {props.loadingEarlier ? t("loading_earlier") : t("load_earlier")}
            </button>
          ) : thread.messages.length ? (
            <span className="sv-beginning">{t("beginning")}</span>
          ) : null}
        </li>
        {thread.messages.length === 0 && thread.pending.length === 0 ? <li className="sv-empty">{props.empty}</li> : null}
        {thread.messages.map((m, i) => {
          const own = isOwn(m, viewer);
          const prev = thread.messages[i - 1];
          const showName = !prev || prev.author !== m.author || prev.operator_name !== m.operator_name;
          return m.author === "system" ? (
            <li key={m.id} className="sv-system" data-testid="sv-system" data-id={m.id}>
              {t(`system.${m.text}`, { defaultValue: m.text ?? "" })}
            </li>
          ) : (
            <Bubble key={m.id} message={m} own={own} delivery={own ? deliveryOf(m, thread) : null} locale={locale} showName={showName} />
          );
        })}
        {thread.pending.map((p) => (
          <PendingSender key={p.client_message_id} pending={p} conversationId={props.conversationId} dispatch={dispatch} onConversation={props.onConversation} locale={locale} socketSend={props.socketSend} />
        ))}
      </ol>
      <div className="sv-dock">
        {thread.peer_typing ? (
          <p className="sv-typing" data-testid="sv-typing" role="status">
            <span className="sv-dots" aria-hidden="true">
              <i />
              <i />
              <i />
            </span>
            {viewer === "visitor" ? t("typing_operator") : t("typing_visitor")}
          </p>
        ) : null}
        {props.above}
        {props.composer ?? <Composer onText={(text) => write(text, null)} onPicture={(file) => write(null, file)} onTyping={props.typing.typed} insert={props.insert} />}
      </div>
    </div>
  );
}

/**
 * Keeps the reader where they were: loading earlier messages does not move what is on
 * screen; a new message scrolls to the bottom when the reader was already there (or wrote it).
 */
function useScrollKeeper(list: React.RefObject<HTMLOListElement>, mode: "window" | "box", thread: Thread) {
  const before = useRef({ height: 0, first: 0, last: 0, pending: 0, atBottom: true });
  const scroller = () => (mode === "box" ? list.current : (document.scrollingElement as HTMLElement | null));
  const first = thread.messages[0]?.id ?? 0;
  const last = thread.messages[thread.messages.length - 1]?.id ?? 0;

  useLayoutEffect(() => {
    const el = scroller();
    if (!el) return;
    const prev = before.current;
    const grownAbove = prev.first !== 0 && first < prev.first && last === prev.last;
    if (grownAbove) el.scrollTop += el.scrollHeight - prev.height;
    else if (prev.height === 0 || prev.atBottom || thread.pending.length > prev.pending) el.scrollTop = el.scrollHeight;
    before.current = { height: el.scrollHeight, first, last, pending: thread.pending.length, atBottom: el.scrollHeight - el.scrollTop - el.clientHeight < 80 };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [first, last, thread.pending.length, thread.peer_typing]);

  useLayoutEffect(() => {
    const target: HTMLElement | Window | null = mode === "box" ? list.current : window;
    const el = scroller();
    if (!target || !el) return;
    const onScroll = () => {
      before.current.atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
      before.current.height = el.scrollHeight;
    };
    target.addEventListener("scroll", onScroll, { passive: true });
    return () => target.removeEventListener("scroll", onScroll);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [mode]);
}
