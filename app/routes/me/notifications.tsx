import { useBackgroundRevalidate } from "../../lib/revalidate";
import { redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher, useLoaderData } from "@remix-run/react";
import { useGuardedFetcher, useGuardedSubmit } from "../../lib/tap-guard";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { NOTIFICATION_KINDS } from "../../../worker/db/schema/notifications";
import type { NotificationKind } from "../../../worker/domain/notifications/kinds";
import { noticeText } from "../../../worker/domain/notifications/text";
import { LocalTime } from "../../components/money/local-time";
import { Screen } from "../../components/nav";
import { PushSettings, type PushView } from "../../components/notifications/push-settings";
import { useUi } from "../../components/ui";
import { api, apiOrLogin } from "../../lib/api.server";
import { setNoticeCounts, useNoticeCounts } from "../../lib/notice-unread";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useRootData } from "../../root";
import styles from "../../styles/notifications.css";
export { clientAction } from "../../lib/client-action";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: styles }];

export type Notice = { id: number; kind: NotificationKind; params: Record<string, unknown>; url: string; created_at_ms: number; read: boolean };
type ListAnswer = { list: Notice[]; unread: number; badge: number };

/**
 * The list's first page, the push settings and the VAPID key; `?unread=1` only the counts (the
 * me tab's badge); `?before_id=` one older page (the "Show older" button).
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  if (url.searchParams.get("unread") === "1") {
    const res = await api<ListAnswer>(context, request, "/api/user/notifications");
    return { unread: res.code === 1 ? res.data.unread : 0, badge: res.code === 1 ? res.data.badge : 0 };
  }
  const before_id = url.searchParams.get("before_id");
  const list = await apiOrLogin<ListAnswer>(context, request, "/api/user/notifications", before_id ? { before_id } : {});
  if (before_id) return { older: list.code === 1 ? list.data.list : [] };
  const [settings, key] = await Promise.all([api<PushView>(context, request, "/api/user/notifications/settings"), api<{ public_key: string }>(context, request, "/api/user/push/key")]);
  return {
    list: list.code === 1 ? list.data.list : [],
    counts: list.code === 1 ? { unread: list.data.unread, badge: list.data.badge } : null,
    error: list.code === 1 ? null : list.msg,
    push: settings.code === 1 ? settings.data : null,
    public_key: key.code === 1 ? key.data.public_key : null,
  };
}

type Loaded = { list: Notice[]; counts: { unread: number; badge: number } | null; error: string | null; push: PushView | null; public_key: string | null };

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  if (intent === "open") {
    // Tapping a notice reads it and goes where it points (only a page of ours).
    await api(context, request, "/api/user/notifications/read", { ids: String(form.get("id") ?? "") });
    const to = String(form.get("url") ?? "");
    throw redirect(to.startsWith("/pages/") ? to : "/pages/me/sub/notifications");
  }
  if (intent === "read_all") return api(context, request, "/api/user/notifications/read", { all: 1 });
  if (intent === "setting") return api(context, request, "/api/user/notifications/settings/set", { kind: String(form.get("kind") ?? ""), push: String(form.get("push") ?? "") });
  if (intent === "subscribe") {
    const body = { endpoint: String(form.get("endpoint") ?? ""), p256dh: String(form.get("p256dh") ?? ""), auth: String(form.get("auth") ?? "") };
    return api(context, request, "/api/user/push/subscribe", body);
  }
  if (intent === "unsubscribe") return api(context, request, "/api/user/push/unsubscribe", { endpoint: String(form.get("endpoint") ?? "") });
  return api(context, request, "/api/user/notifications/read", {});
}

/** The notification centre: what happened to the user's money, orders and account, newest first. */
export default function Notifications() {
  const { t } = useTranslation("notifications");
  const data = useLoaderData<typeof loader>() as Loaded;
  const ui = useUi();
  const readAll = useGuardedFetcher<PageEnvelope<{ unread: number; badge: number }>>({ key: "notices-read-all" });
  const older = useFetcher<{ older: Notice[] }>();
  const [extra, setExtra] = useState<Notice[]>([]);
  const { counts, changes } = useNoticeCounts();
  useLiveList(changes);
  useEffect(() => {
    // The page's own answer is the newest count: the badge follows it. Older pages already
    // shown stay; once nothing is unread, they are read too.
    if (data.counts) setNoticeCounts(data.counts, false);
    if (data.counts?.unread === 0) setExtra((e) => e.map((n) => ({ ...n, read: true })));
  }, [data]);
  useEffect(() => {
    if (older.data?.older) setExtra((e) => [...e, ...older.data!.older.filter((n) => !e.some((x) => x.id === n.id))]);
  }, [older.data]);
  useEnvelope(readAll.data, (c) => setNoticeCounts(c, false));
  const list = [...data.list, ...extra.filter((n) => !data.list.some((x) => x.id === n.id))];
  const unread = counts?.unread ?? data.counts?.unread ?? 0;
  const last = list[list.length - 1];
  const more = list.length > 0 && list.length % 20 === 0 && older.data?.older?.length !== 0;
  return (
    <Screen title={t("title")} back>
      {data.error ? <p className="empty">{data.error}</p> : null}
      {!data.error && list.length === 0 ? <p className="empty nc-empty">{t("empty")}</p> : null}
      {list.length > 0 ? (
        <section className="card nc-card" aria-label={t("title")}>
          {unread > 0 ? (
            <div className="nc-head">
              <p className="muted nc-count" data-testid="notices-unread">
                {t("unread", { count: unread })}
              </p>
              <button type="button" className="link" data-testid="notices-read-all" onClick={() => readAll.submit({ intent: "read_all" }, { method: "post" })}>
                {t("mark_all_read")}
              </button>
            </div>
          ) : null}
          <ul className="nc-list">
            {list.map((n) => (
              <NoticeItem key={n.id} n={n} />
            ))}
          </ul>
          {more ? (
            <button type="button" className="btn btn-plain btn-block" disabled={older.state !== "idle"} onClick={() => older.load(`/pages/me/sub/notifications?before_id=${last.id}`)}>
              {t("load_more")}
            </button>
          ) : null}
        </section>
      ) : null}
      <PushSettings push={data.push} public_key={data.public_key} kinds={NOTIFICATION_KINDS} onError={(msg) => ui.toast(msg)} />
    </Screen>
  );
}

/** A notice that arrived while the page is open (or was read on another page) shows at once. */
function useLiveList(changes: number) {
  const reload = useBackgroundRevalidate();
  const seen = useRef(changes);
  useEffect(() => {
    if (seen.current === changes) return;
    seen.current = changes;
    reload();
  }, [changes, reload]);
}

function NoticeItem({ n }: { n: Notice }) {
  const { t } = useTranslation("notifications");
  const locale = useRootData()?.locale ?? "en";
  const submit = useGuardedSubmit();
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  // Texts with a time say it in UTC until the browser's own zone is known (as LocalTime does).
  const words = noticeText(n, locale, (key, vars) => t(key, vars), hydrated ? undefined : "UTC");
  return (
    <li>
      <button
        type="button"
        className={n.read ? "nc-item" : "nc-item nc-unread"}
        data-testid="notice"
        data-kind={n.kind}
        onClick={() => submit({ intent: "open", id: String(n.id), url: words.url }, { method: "post" })}
      >
        {n.read ? null : (
          <>
            <span className="nc-dot" aria-hidden="true" />
            <span className="nc-sr">{t("unread_label")}</span>
          </>
        )}
        <span className="nc-title">{words.title}</span>
        <span className="nc-body">{words.body}</span>
        <span className="nc-time muted">
          <LocalTime ms={n.created_at_ms} locale={locale} />
        </span>
      </button>
    </li>
  );
}
