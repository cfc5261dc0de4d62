import { useTranslation } from "react-i18next";
import type { DeliveryState, Pending, ServiceMessage } from "../../lib/service";

/** "14:05" in the viewer's locale and time zone (the time under a bubble). */
export function clockOf(ms: number, locale: string): string {
  return new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit" }).format(new Date(ms));
}

/**
 * One message. Own messages sit on the right with their delivery ticks; the other side's on
 * the left, an operator's under the operator's display name. Pictures open full size on tap.
 * System notes (closed, reopened) are drawn by the thread, not here.
 */
export function Bubble({ message, own, delivery, locale, showName }: { message: ServiceMessage; own: boolean; delivery: DeliveryState | null; locale: string; showName: boolean }) {
  const { t } = useTranslation("service");
  const name = message.author === "operator" ? message.operator_name || t("operator_default") : t("visitor_default");
  return (
    <li className={own ? "sv-row sv-own" : "sv-row sv-peer"} data-testid="sv-message" data-id={message.id} data-author={message.author}>
      {showName && !own ? <span className="sv-name">{name}</span> : null}
      <div className="sv-bubble">
        <Body text={message.text} image_url={message.image_url} time={message.created_at_ms} locale={locale} />
        <span className="sv-meta">
          <time dateTime={new Date(message.created_at_ms).toISOString()} suppressHydrationWarning>
            {clockOf(message.created_at_ms, locale)}
          </time>
          {own && delivery ? <Ticks state={delivery} /> : null}
        </span>
      </div>
    </li>
  );
}

/** A message of ours the server has not confirmed: sending, or failed with its reason, a retry (same id) and a way to drop it. */
export function PendingBubble({ pending, locale, onRetry, onDiscard }: { pending: Pending; locale: string; onRetry: () => void; onDiscard: () => void }) {
  const { t } = useTranslation("service");
  return (
    <li className="sv-row sv-own" data-testid="sv-pending" data-failed={pending.failed ? "true" : "false"}>
      <div className={pending.failed ? "sv-bubble sv-bubble-failed" : "sv-bubble sv-bubble-sending"}>
        <Body text={pending.text} image_url={pending.image_url} time={pending.created_at_ms} locale={locale} />
        <span className="sv-meta">{pending.failed ? t("failed") : t("sending")}</span>
      </div>
      {pending.failed ? (
        <p className="sv-failed" role="alert">
          <span>{pending.failed}</span>
          <button type="button" className="link" onClick={onRetry} data-testid="sv-retry">
            {t("retry")}
          </button>
          <button type="button" className="link" onClick={onDiscard} data-testid="sv-discard">
            {t("discard")}
          </button>
        </p>
      ) : null}
    </li>
  );
}

function Body({ text, image_url, time, locale }: { text: string | null; image_url: string | null; time: number; locale: string }) {
  const { t } = useTranslation("service");
  return (
    <>
      {image_url ? (
        <a href={image_url} target="_blank" rel="noreferrer" className="sv-picture" aria-label={t("open_picture")}>
          <img src={image_url} alt={t("picture_alt", { time: clockOf(time, locale) })} loading="lazy" data-testid="sv-picture" />
        </a>
      ) : null}
      {text ? <p className="sv-text">{text}</p> : null}
    </>
  );
}

/** One tick sent, two delivered, two blue read; the word is there for screen readers. */
function Ticks({ state }: { state: DeliveryState }) {
  const { t } = useTranslation("service");
  const label = t(`state.${state}`);
  return (
    <span className={`sv-ticks sv-ticks-${state}`} data-testid="sv-state" data-state={state} title={label}>
      <svg viewBox="0 0 20 12" width="18" height="11" aria-hidden="true">
        <path d="M1 6.5l3.5 3.5L11 2" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
        {state !== "sent" ? <path d="M8.5 9.5l.5.5L15.5 2" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" /> : null}
      </svg>
      <span className="sv-sr">{label}</span>
    </span>
  );
}
