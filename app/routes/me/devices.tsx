import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useGuardedFetcher } from "../../lib/tap-guard";
import { useTranslation } from "react-i18next";
import { LaptopIcon, PhoneIcon } from "../../components/device-icons";
import { Empty, Screen } from "../../components/nav";
import { useUi } from "../../components/ui";
import { api, apiOrLogin } from "../../lib/api.server";
import { formatDateTime } from "../../lib/format";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useRootData } from "../../root";
import devicesStyles from "../../styles/devices.css";
import { MenuItem } from "./account";
export { clientAction } from "../../lib/client-action";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: devicesStyles }];

type SessionItem = { id: string; device: string; ip: string; created_at_ms: number; last_seen_at_ms: number; current: boolean };
type Attempt = { at_ms: number; ok: boolean; method: "password" | "wallet" | "passkey"; device: string; ip: string };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const [sessions, history] = await Promise.all([
    apiOrLogin<{ list: SessionItem[] }>(context, request, "/api/user/sessions"),
    apiOrLogin<{ list: Attempt[] }>(context, request, "/api/user/login_history"),
  ]);
  return { sessions: sessions.code === 1 ? sessions.data.list : [], history: history.code === 1 ? history.data.list : [] };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const body = form.get("intent") === "all_others" ? { all_others: 1 } : { id: String(form.get("id") ?? "") };
  return api(context, request, "/api/user/sessions/revoke", body);
}

/** Where the account is signed in, ending sessions, and who tried to sign in. */
export default function Devices() {
  const { t } = useTranslation("me");
  const { sessions, history } = useLoaderData<typeof loader>();
  const ui = useUi();
  const endAll = useGuardedFetcher<PageEnvelope>({ key: "sessions-all-others" });
  useEnvelope(endAll.data, (_d, msg) => ui.toast(msg));
  const others = sessions.filter((s) => !s.current).length;
  return (
    <Screen title={t("devices.title")} back>
      <section className="card" aria-labelledby="dv-sessions">
        <h2 className="card-title" id="dv-sessions">
          {t("devices.sessions_title")}
        </h2>
        <p className="muted">{t("devices.sessions_note")}</p>
        <ul className="dv-list" data-testid="session-list">
          {sessions.map((s) => (
            <SessionRow key={s.id} s={s} />
          ))}
        </ul>
        {others > 0 ? (
          <button
            type="button"
            className="btn btn-danger btn-block"
            disabled={endAll.state !== "idle"}
            data-testid="end-all-others"
            onClick={async () => {
              if (await ui.confirm(t("devices.end_all_confirm"))) endAll.submit({ intent: "all_others" }, { method: "post" });
            }}
          >
            {t("devices.end_all")}
          </button>
        ) : null}
      </section>
      <nav className="menu card" aria-label={t("passkeys.title")}>
        <MenuItem to="/pages/me/sub/passkeys" label={t("passkeys.title")} testId="menu-passkeys" />
      </nav>
      <section className="card" aria-labelledby="dv-history">
        <h2 className="card-title" id="dv-history">
          {t("devices.history_title")}
        </h2>
        {history.length === 0 ? (
          <Empty />
        ) : (
          <ul className="dv-list" data-testid="login-history">
            {history.map((a, i) => (
              <AttemptRow key={`${a.at_ms}-${i}`} a={a} />
            ))}
          </ul>
        )}
      </section>
    </Screen>
  );
}

function SessionRow({ s }: { s: SessionItem }) {
  const { t } = useTranslation("me");
  const root = useRootData();
  const ui = useUi();
  const fetcher = useGuardedFetcher<PageEnvelope>();
  useEnvelope(fetcher.data, (_d, msg) => ui.toast(msg));
  const locale = root?.locale ?? "en";
  const device = s.device || t("devices.unknown_device");
  return (
    <li className="dv-item" data-testid="session-row" data-current={s.current ? "1" : "0"}>
      <span className="dv-icon" aria-hidden="true">
        {/ on (Android|iOS)$/.test(s.device) ? <PhoneIcon /> : <LaptopIcon />}
      </span>
      <div className="dv-text">
        <p className="dv-title">
          <span>{device}</span>
          {s.current ? <span className="dv-tag">{t("devices.this_device")}</span> : null}
        </p>
        <p className="dv-detail">{t("devices.network", { ip: networkText(s.ip, t) })}</p>
        <p className="dv-detail">{t("devices.signed_in_at", { time: formatDateTime(s.created_at_ms, locale) })}</p>
        <p className="dv-detail">{t("devices.last_seen_at", { time: formatDateTime(s.last_seen_at_ms, locale) })}</p>
      </div>
      {s.current ? null : (
        <div className="dv-actions">
          <button
            type="button"
            className="btn btn-danger dv-small"
            disabled={fetcher.state !== "idle"}
            aria-label={t("devices.end_label", { device })}
            data-testid="end-session"
            onClick={async () => {
              if (await ui.confirm(t("devices.end_confirm", { device }))) fetcher.submit({ id: s.id }, { method: "post" });
            }}
          >
            {t("devices.end")}
          </button>
        </div>
      )}
    </li>
  );
}

function AttemptRow({ a }: { a: Attempt }) {
  const { t } = useTranslation("me");
  const root = useRootData();
  return (
    <li className="dv-item" data-testid="attempt-row" data-ok={a.ok ? "1" : "0"}>
      <div className="dv-text">
        <p className="dv-title">
          <span className={a.ok ? "dv-tag dv-ok" : "dv-tag dv-bad"}>{t(a.ok ? "devices.attempt_ok" : "devices.attempt_failed")}</span>
          <span>{t(`devices.method_${a.method}`)}</span>
        </p>
        <p className="dv-detail">{formatDateTime(a.at_ms, root?.locale ?? "en")}</p>
        <p className="dv-detail">
          {a.device || t("devices.unknown_device")} · {networkText(a.ip, t)}
        </p>
      </div>
    </li>
  );
}

/** "local" is what the server records without a client address (a sign-in on this machine). */
function networkText(ip: string, t: (key: string) => string): string {
  return ip === "local" || !ip ? t("devices.local_network") : ip;
}
