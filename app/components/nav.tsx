import { Link, useFetcher, useLocation, useNavigate, useRouteLoaderData, type LinkProps } from "@remix-run/react";
import { useEffect, useRef, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { askedNoticeCounts, noticeCountsMark, useNoticeCounts } from "../lib/notice-unread";
import { askedServiceUnread, serviceUnreadMark, useServiceUnread } from "../lib/service-unread";

/** A link that does nothing when it points at the page already shown (docs/product.md, navigation). */
export function AppLink(props: LinkProps) {
  const location = useLocation();
  const target = typeof props.to === "string" ? props.to : (props.to.pathname ?? "") + (props.to.search ?? "");
  const here = location.pathname + location.search;
  return (
    <Link
      {...props}
      onClick={(e) => {
        if (target === here || target === location.pathname) {
          e.preventDefault();
          return;
        }
        props.onClick?.(e);
      }}
    />
  );
}

/** A title's width in Latin letters: CJK and full-width characters count two. */
function titleWidth(title: string): number {
  const wide = title.match(/[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]/g);
  return title.length + (wide?.length ?? 0);
}

/**
 * The blue 44 px custom navigation bar. Back goes to the previous page, whose loaders run
 * again, so it shows fresh data; with no history it goes home.
 */
export function Navbar({ title, back = false, right }: { title: string; back?: boolean; right?: ReactNode }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <header className="navbar">
      <div className="navbar-side">
        {back ? (
          <button
            type="button"
            className="navbar-back"
            aria-label={t("back")}
            onClick={() => (window.history.length > 1 ? navigate(-1) : navigate("/"))}
          >
            <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
              <path d="M15 5l-7 7 7 7" fill="none" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" strokeLinejoin="round" />
            </svg>
          </button>
        ) : null}
      </div>
      {/* A long title (Spanish, Portuguese, Vietnamese...) takes two smaller lines rather than losing its end. */}
      <h1 className={titleWidth(title) > 24 ? "navbar-title navbar-title-long" : "navbar-title"}>{title}</h1>
      <div className="navbar-side navbar-right">{right}</div>
    </header>
  );
}

const TABS = [
  { to: "/", key: "wallet", icon: "M3 7h18v12H3zM3 7l2-3h14l2 3M16 13h2" },
  { to: "/pages/money/index", key: "trade", icon: "M4 18l5-6 4 3 7-9M15 6h5v5" },
  { to: "/pages/invest/index", key: "markets", icon: "M5 20V10M10 20V4M15 20v-8M20 20V7" },
  { to: "/pages/me/index", key: "accounts", icon: "M12 12a4 4 0 100-8 4 4 0 000 8zM4 21c0-4 4-6 8-6s8 2 8 6" },
] as const;

/** The four bottom tabs: gray text, black when selected, white background. */
export function TabBar() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const active = pathname === "/pages/index/index" ? "/" : pathname;
  return (
    <nav className="tabbar" aria-label="tabs">
      {TABS.map((tab) => {
        const selected = active === tab.to;
        return (
          <AppLink key={tab.to} to={tab.to} className={selected ? "tab tab-active" : "tab"} aria-current={selected ? "page" : undefined} replace>
            <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
              <path d={tab.icon} fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
            </svg>
            <span>{t(`tabs.${tab.key}`)}</span>
            {tab.key === "accounts" ? <ServiceBadge /> : null}
          </AppLink>
        );
      })}
    </nav>
  );
}

let askedGeneration = -1;

/**
 * Unread customer-service messages and notices on the me tab: asked when the page starts and
 * again each time the user channel (re)connects, live from the channel in between.
 */
function ServiceBadge() {
  const { t } = useTranslation("service");
  const { t: tn } = useTranslation("notifications");
  const signedIn = Boolean(useRouteLoaderData<{ user: unknown }>("root")?.user);
  const { unread, generation } = useServiceUnread();
  const fetcher = useFetcher<{ unread?: number }>({ key: "service-unread" });
  const mark = useRef(0);
  useEffect(() => {
    // One question at a time: a second load would abort the first (an AbortError in the console).
    if (!signedIn || askedGeneration === generation || fetcher.state !== "idle") return;
    askedGeneration = generation;
    mark.current = serviceUnreadMark();
    fetcher.load("/pages/me/sub/service?unread=1");
  }, [signedIn, generation, fetcher]);
  useEffect(() => {
    // A live count that arrived while this answer was on its way is newer than the answer.
    if (typeof fetcher.data?.unread === "number") askedServiceUnread(fetcher.data.unread, mark.current);
  }, [fetcher.data]);
  const notices = useNoticeBadge(signedIn);
  // One badge for both: unread chat messages plus unread notices (operator replies are counted once, as messages).
  const total = (unread ?? 0) + notices;
  if (!signedIn || !total) return null;
  return (
    <span className="tab-badge" data-testid="service-badge" aria-label={notices ? tn("unread", { count: total }) : t("unread_badge", { count: total })}>
      {total > 99 ? "99+" : total}
    </span>
  );
}

let askedNotices = -1;

/** The notices' share of the me-tab badge: asked at start and whenever a notice came without counts. */
function useNoticeBadge(signedIn: boolean): number {
  const { counts, asks } = useNoticeCounts();
  const fetcher = useFetcher<{ unread?: number; badge?: number }>({ key: "notice-unread" });
  const mark = useRef(0);
  useEffect(() => {
    if (!signedIn || askedNotices === asks || fetcher.state !== "idle") return;
    askedNotices = asks;
    mark.current = noticeCountsMark();
    fetcher.load("/pages/me/sub/notifications?unread=1");
  }, [signedIn, asks, fetcher]);
  useEffect(() => {
    const d = fetcher.data;
    if (typeof d?.unread === "number" && typeof d.badge === "number") askedNoticeCounts({ unread: d.unread, badge: d.badge }, mark.current);
  }, [fetcher.data]);
  return counts?.badge ?? 0;
}

export function Empty() {
  const { t } = useTranslation();
  return <p className="empty">{t("no_data")}</p>;
}

/** A page: navbar, content, and the tab bar on the four tab pages. */
export function Screen({ title, back, right, tabs, children }: { title: string; back?: boolean; right?: ReactNode; tabs?: boolean; children: ReactNode }) {
  return (
    <div className={tabs ? "screen screen-tabs" : "screen"}>
      <Navbar title={title} back={back} right={right} />
      <main className="screen-body">{children}</main>
      {tabs ? <TabBar /> : null}
    </div>
  );
}
