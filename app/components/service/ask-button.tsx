import { useTranslation } from "react-i18next";
import { AppLink } from "../nav";
import { serviceUrl, type ContextKind } from "../../lib/service";

/**
 * "Ask customer service" about one thing of the user's (an order, a deposit, a withdrawal, a
 * promotion): the service page opens the conversation with that context attached.
 */
export function AskServiceButton({ kind, refId, variant = "button" }: { kind: ContextKind; refId: number; variant?: "button" | "link" }) {
  const { t } = useTranslation("service");
  return (
    <AppLink to={serviceUrl(kind, refId)} className={variant === "button" ? "btn btn-plain sv-ask" : "sv-ask-link"} data-testid="ask-service" data-kind={kind} data-ref={refId}>
      <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
        <path d="M4 5h16v11H9l-5 4z" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinejoin="round" />
      </svg>
      {t("ask")}
    </AppLink>
  );
}
