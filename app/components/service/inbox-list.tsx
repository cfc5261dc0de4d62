import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { INBOX_FILTERS, type InboxFilter, type InboxRow } from "../../lib/service-inbox";
import { clockOf } from "./bubble";
import { languageName } from "./customer-panel";

/** The console's conversations: filter tabs, then one row each with its unread count. */
export function InboxList({ rows, filter, selected, locale, href }: { rows: InboxRow[]; filter: InboxFilter; selected: number | null; locale: string; href: (q: { filter?: InboxFilter; id?: number; lang?: string }) => string }) {
  const { t } = useTranslation("service");
  return (
    <section className="sv-pane" aria-label={t("inbox.list_label")}>
      <nav className="sv-filters">
        {INBOX_FILTERS.map((f) => (
          <Link key={f} to={href({ filter: f })} aria-current={f === filter ? "page" : undefined} data-testid={`sv-filter-${f}`}>
            {t(`inbox.filter.${f}`)}
          </Link>
        ))}
      </nav>
      {rows.length === 0 ? <p className="empty">{t("inbox.empty")}</p> : null}
      <ul className="sv-convs" data-testid="sv-inbox">
        {rows.map((r) => (
          <li key={r.id}>
            <Link to={href({ id: r.id, lang: r.lang ?? undefined })} className="sv-conv" aria-current={r.id === selected ? "true" : undefined} data-testid="sv-conv" data-id={r.id} data-unread={r.unread}>
              <div className="sv-conv-top">
                <span className="sv-conv-who">{r.user_id === null ? t("inbox.guest", { id: r.id }) : r.who}</span>
                {r.unread > 0 ? (
                  <span className="sv-unread" aria-label={t("inbox.unread", { count: r.unread })} data-testid="sv-conv-unread">
                    {r.unread > 99 ? "99+" : r.unread}
                  </span>
                ) : r.last_message_at_ms ? (
                  <time className="sv-conv-time" suppressHydrationWarning>
                    {clockOf(r.last_message_at_ms, locale)}
                  </time>
                ) : null}
              </div>
              <p className="sv-conv-preview">{r.last_message_preview || "\u00a0"}</p>
              <div className="sv-conv-tags">
                {r.status === "closed" ? <span>{t("inbox.status.closed")}</span> : null}
                <span>{r.assigned_operator ? t("inbox.assigned_to", { name: r.assigned_operator.account || "…" }) : t("inbox.unassigned")}</span>
                {r.lang ? <span>{languageName(r.lang)}</span> : null}
                {r.contexts.map((c) => (
                  <span key={`${c.kind}:${c.ref_id}`} className="sv-chip">
                    {t(`about.${c.kind}`, { id: c.ref_id })}
                  </span>
                ))}
              </div>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
