import { useFetcher } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import type { NotificationKind } from "../../../worker/domain/notifications/kinds";
import type { PageEnvelope } from "../../lib/use-envelope";

export type PushView = { kinds: Record<NotificationKind, boolean>; endpoints: string[] };
type Status = "checking" | "unsupported" | "denied" | "off" | "on";

async function currentSubscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.ready;
  return registration.pushManager.getSubscription();
}

/** Whether this browser can get alerts at all, and whether this install is subscribed for this user. */
function usePushStatus(push: PushView | null, public_key: string | null): [Status, (s: Status) => void] {
  const [status, setStatus] = useState<Status>("checking");
  useEffect(() => {
    if (!public_key || !push || !("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) return setStatus("unsupported");
    if (Notification.permission === "denied") return setStatus("denied");
    let live = true;
    currentSubscription()
      .then((sub) => live && setStatus(sub && push.endpoints.includes(sub.endpoint) ? "on" : "off"))
      .catch(() => live && setStatus("unsupported"));
    return () => {
      live = false;
    };
  }, [push, public_key]);
  return [status, setStatus];
}

/**
 * Alerts on this device (Web Push): turn them on (the browser asks for permission, then this
 * install subscribes with the server's VAPID key and the server keeps the subscription), off,
 * and which kinds to send. Every kind stays in the centre whatever is chosen here.
 */
export function PushSettings({ push, public_key, kinds, onError }: { push: PushView | null; public_key: string | null; kinds: readonly NotificationKind[]; onError: (msg: string) => void }) {
  const { t } = useTranslation("notifications");
  const [status, setStatus] = usePushStatus(push, public_key);
  const fetcher = useFetcher<PageEnvelope>({ key: "push-settings" });
  useEffect(() => {
    if (!fetcher.data || fetcher.data.code === 1) return;
    if (fetcher.data.msg) onError(fetcher.data.msg);
    // A subscription the server refused (a push service it does not send to, or five devices already) is not on.
    const error = (fetcher.data.data as { error?: string } | undefined)?.error;
    if (error === "push_endpoint_unknown" || error === "push_subscriptions_limit") setStatus("off");
  }, [fetcher.data, onError, setStatus]);

  async function turnOn() {
    try {
      if ((await Notification.requestPermission()) !== "granted") return setStatus("denied");
      const registration = await navigator.serviceWorker.ready;
      // The Push API takes the VAPID key as the base64url text the server sends; no decoding of ours.
      const sub = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: public_key! });
      const keys = sub.toJSON().keys ?? {};
      fetcher.submit({ intent: "subscribe", endpoint: sub.endpoint, p256dh: keys.p256dh ?? "", auth: keys.auth ?? "" }, { method: "post" });
      setStatus("on");
    } catch {
      setStatus("unsupported");
    }
  }

  async function turnOff() {
    const sub = await currentSubscription().catch(() => null);
    if (sub) {
      fetcher.submit({ intent: "unsubscribe", endpoint: sub.endpoint }, { method: "post" });
      await sub.unsubscribe().catch(() => undefined);
    }
    setStatus("off");
  }

  return (
    <section className="card push-settings" data-testid="push-settings" data-status={status}>
      <h2 className="card-title">{t("push.title")}</h2>
      <p className="muted">{status === "unsupported" ? t("push.unsupported") : status === "denied" ? t("push.denied") : status === "on" ? t("push.on") : t("push.note")}</p>
      {status === "off" ? (
        <button type="button" className="btn btn-primary btn-block" onClick={turnOn}>
          {t("push.enable")}
        </button>
      ) : null}
      {status === "on" && push ? (
        <>
          <h3 className="push-kinds-title">{t("push.kinds")}</h3>
          <ul className="push-kinds">
            {kinds.map((kind) => (
              <li key={kind}>
                <label className="push-kind">
                  <span>{t(`kind.${kind}.title`)}</span>
                  <input
                    type="checkbox"
                    role="switch"
                    defaultChecked={push.kinds[kind]}
                    onChange={(e) => fetcher.submit({ intent: "setting", kind, push: e.currentTarget.checked ? "1" : "0" }, { method: "post" })}
                  />
                </label>
              </li>
            ))}
          </ul>
          <button type="button" className="btn btn-plain btn-block" onClick={turnOff}>
            {t("push.disable")}
          </button>
        </>
      ) : null}
    </section>
  );
}
