import { useTranslation } from "react-i18next";
import { useNoticeCounts } from "../../lib/notice-unread";
import { AppLink } from "../nav";

/** The way into the notification centre from the me page, with its unread count (kept live by the user channel). */
export function NoticeBell() {
  const { t } = useTranslation("notifications");
  const unread = useNoticeCounts().counts?.unread ?? 0;
  return (
    <AppLink to="/pages/me/sub/notifications" className="bell" data-testid="notice-bell" aria-label={unread ? `${t("bell")}: ${t("unread", { count: unread })}` : t("bell")}>
      <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
        <path d="M6 16V11a6 6 0 1112 0v5l1.5 2h-15zM10 20a2 2 0 004 0" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
      </svg>
      {unread ? (
        <span className="bell-count" data-testid="notice-bell-count">
          {unread > 99 ? "99+" : unread}
        </span>
      ) : null}
    </AppLink>
  );
}
