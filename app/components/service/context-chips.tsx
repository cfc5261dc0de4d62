import { useTranslation } from "react-i18next";
import type { ServiceContext } from "../../lib/service";

/** What the conversation is about ("About order #123"), above the composer. */
export function ContextChips({ contexts }: { contexts: ServiceContext[] }) {
  const { t } = useTranslation("service");
  if (contexts.length === 0) return null;
  return (
    <ul className="sv-chips" aria-label={t("contexts_label")} data-testid="sv-contexts">
      {contexts.map((c) => (
        <li key={`${c.kind}:${c.ref_id}`} className="sv-chip" data-kind={c.kind} data-ref={c.ref_id}>
          {t(`about.${c.kind}`, { id: c.ref_id })}
        </li>
      ))}
    </ul>
  );
}
