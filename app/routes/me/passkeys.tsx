import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { CodeField } from "../../components/code-field";
import { useTwoFactorOn } from "../../lib/two-factor";
import { useFetcher, useLoaderData } from "@remix-run/react";
import { useGuardedFetcher } from "../../lib/tap-guard";
import { useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { KeyIcon } from "../../components/device-icons";
import { Empty, Screen } from "../../components/nav";
import { outcomeKey } from "../../components/passkey-sign-in";
import { useUi } from "../../components/ui";
import { api, apiOrLogin } from "../../lib/api.server";
import { formatDateTime } from "../../lib/format";
import { createPasskey } from "../../lib/passkey-browser";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useRootData } from "../../root";
import devicesStyles from "../../styles/devices.css";
export { clientAction } from "../../lib/client-action";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: devicesStyles }];

type Passkey = { id: string; name: string; created_at_ms: number; last_used_at_ms: number | null };
type Options = Parameters<typeof createPasskey>[0];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const res = await apiOrLogin<{ list: Passkey[] }>(context, request, "/api/user/passkeys/list");
  return { passkeys: res.code === 1 ? res.data.list : [] };
}

/** Each intent is one API call; the answer goes back to the page as its envelope. */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const field = (name: string) => String(form.get(name) ?? "");
  switch (field("intent")) {
    case "options":
      return api(context, request, "/api/user/passkeys/register/options", { password: String(form.get("password") ?? ""), code: String(form.get("code") ?? "") });
    case "verify":
      return api(context, request, "/api/user/passkeys/register/verify", { response: field("response"), name: field("name") });
    case "rename":
      return api(context, request, "/api/user/passkeys/rename", { id: field("id"), name: field("name") });
    default:
      return api(context, request, "/api/user/passkeys/remove", { id: field("id") });
  }
}

/** The user's passkeys: add one on this device, rename, remove. */
export default function Passkeys() {
  const { t } = useTranslation("me");
  const { passkeys } = useLoaderData<typeof loader>();
  return (
    <Screen title={t("passkeys.title")} back>
      <section className="card">
        <p className="muted">{t("passkeys.intro")}</p>
      </section>
      <section className="card" aria-label={t("passkeys.title")}>
        {passkeys.length === 0 ? (
          <Empty />
        ) : (
          <ul className="dv-list" data-testid="passkey-list">
            {passkeys.map((p) => (
              <PasskeyRow key={p.id} p={p} />
            ))}
          </ul>
        )}
      </section>
      <AddPasskey />
    </Screen>
  );
}

/** Options from the server, the browser's passkey dialog, then the new credential back to the server. */
function AddPasskey() {
  const { t } = useTranslation("me");
  const { t: tc } = useTranslation();
  const ui = useUi();
  const options = useGuardedFetcher<PageEnvelope<{ options: Options }>>({ key: "passkey-register-options" });
  const verify = useFetcher<PageEnvelope>({ key: "passkey-register-verify" });
  const root = useRootData();
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const asked = useRef<unknown>(null);
  // A wallet account without a password adds passkeys with its session alone (the API decides).
  const needsPassword = root?.user?.has_password !== false;
  // With two-factor on, adding a passkey (which signs in without a code) asks for the code too.
  const twoFactor = useTwoFactorOn();
  const section = useRef<HTMLElement>(null);
  useEnvelope(verify.data, (_d, msg) => {
    ui.toast(msg);
    setName("");
    setPassword("");
  });
  useEnvelope(options.data, async (data) => {
    if (asked.current === data) return;
    asked.current = data;
    const outcome = await createPasskey(data.options as Options);
    if (outcome.status !== "ok") return ui.toast(t(`passkeys.${outcomeKey(outcome)}`), 3500);
    verify.submit({ intent: "verify", response: JSON.stringify(outcome.response), name }, { method: "post" });
  });
  return (
    <section className="card dv-stack" ref={section}>
      <label className="dv-detail" htmlFor="passkey-name">
        {t("passkeys.name_label")}
      </label>
      <div className="dv-rename">
        <input id="passkey-name" value={name} maxLength={40} placeholder={t("passkeys.name_placeholder")} onChange={(e) => setName(e.target.value)} data-testid="passkey-name" />
      </div>
      {needsPassword ? (
        <>
          <label className="dv-detail" htmlFor="passkey-password">
            {t("passkeys.password_label")}
          </label>
          <div className="dv-rename">
            <input
              id="passkey-password"
              type="password"
              autoComplete="current-password"
              value={password}
              placeholder={t("passkeys.password_placeholder")}
              onChange={(e) => setPassword(e.target.value)}
              data-testid="passkey-password"
            />
          </div>
        </>
      ) : null}
      {twoFactor ? <CodeField /> : null}
      <button
        type="button"
        className="btn btn-primary btn-block"
        disabled={options.state !== "idle" || verify.state !== "idle"}
        data-testid="add-passkey"
        onClick={() => {
          const code = section.current?.querySelector<HTMLInputElement>("input[name=code]")?.value.trim() ?? "";
          if ((needsPassword && !password) || (twoFactor && !code)) return ui.toast(tc("incomplete"));
          options.submit({ intent: "options", password, code }, { method: "post" });
        }}
      >
        + {t("passkeys.add")}
      </button>
    </section>
  );
}

function PasskeyRow({ p }: { p: Passkey }) {
  const { t } = useTranslation("me");
  const root = useRootData();
  const ui = useUi();
  const fetcher = useGuardedFetcher<PageEnvelope>();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(p.name);
  useEnvelope(fetcher.data, (_d, msg) => {
    ui.toast(msg);
    setEditing(false);
  });
  const locale = root?.locale ?? "en";
  return (
    <li className="dv-item" data-testid="passkey-row">
      <span className="dv-icon" aria-hidden="true">
        <KeyIcon />
      </span>
      <div className="dv-text">
        <p className="dv-title">{p.name}</p>
        <p className="dv-detail">{t("passkeys.added_at", { time: formatDateTime(p.created_at_ms, locale) })}</p>
        <p className="dv-detail">{p.last_used_at_ms ? t("passkeys.used_at", { time: formatDateTime(p.last_used_at_ms, locale) }) : t("passkeys.never_used")}</p>
        {editing ? (
          <fetcher.Form method="post" className="dv-rename">
            <input type="hidden" name="intent" value="rename" />
            <input type="hidden" name="id" value={p.id} />
            <input name="name" value={name} maxLength={40} aria-label={t("passkeys.name_label")} onChange={(e) => setName(e.target.value)} data-testid="passkey-rename-input" />
            <button type="submit" className="btn btn-primary dv-small" disabled={fetcher.state !== "idle"} data-testid="passkey-rename-save">
              {t("passkeys.save")}
            </button>
          </fetcher.Form>
        ) : null}
      </div>
      <div className="dv-actions">
        <button type="button" className="btn btn-plain dv-small" onClick={() => setEditing(!editing)} data-testid="passkey-rename">
          {t("passkeys.rename")}
        </button>
        <button
          type="button"
          className="btn btn-danger dv-small"
          disabled={fetcher.state !== "idle"}
          data-testid="passkey-remove"
          onClick={async () => {
            if (await ui.confirm(t("passkeys.remove_confirm", { name: p.name }))) fetcher.submit({ intent: "remove", id: p.id }, { method: "post" });
          }}
        >
          {t("passkeys.remove")}
        </button>
      </div>
    </li>
  );
}
