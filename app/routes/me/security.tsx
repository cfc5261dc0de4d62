import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher, useLoaderData } from "@remix-run/react";
import { useGuardedFetcher } from "../../lib/tap-guard";
import { QRCodeSVG } from "qrcode.react";
import { useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { CodeField } from "../../components/code-field";
import { Field, missingFields, useFieldGuard } from "../../components/form";
import { CopyValue } from "../../components/money/copy-value";
import { Notice } from "../../components/money/notice";
import { Screen } from "../../components/nav";
import { useCopy, useUi } from "../../components/ui";
import { api, apiOrLogin } from "../../lib/api.server";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useRootData } from "../../root";
import moneyStyles from "../../styles/money.css";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

type Status = { enabled: boolean; recovery_codes_left: number };
type Setup = { secret: string; otpauth_url: string };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const res = await apiOrLogin<Status>(context, request, "/api/user/2fa/status");
  return { status: res.code === 1 ? res.data : null, error: res.code === 1 ? "" : res.msg };
}

const ROUTES = { setup: "/api/user/2fa/setup", enable: "/api/user/2fa/enable", disable: "/api/user/2fa/disable" } as const;

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "") as keyof typeof ROUTES;
  const field = (n: string) => String(form.get(n) ?? "");
  if (intent === "enable") return api(context, request, ROUTES.enable, { code: field("code"), password: field("password") });
  if (intent === "disable") return api(context, request, ROUTES.disable, { code: field("code"), password: field("password") });
  return api(context, request, ROUTES.setup);
}

/** Two-factor sign-in: its state, enrolment with a QR code, the recovery codes once, turning it off. */
export default function Security() {
  const { t } = useTranslation("me");
  const { status, error } = useLoaderData<typeof loader>();
  // Shown once, right after enabling: the loader never answers them again.
  const [codes, setCodes] = useState<string[] | null>(null);
  return (
    <Screen title={t("security.title")} back>
      {error ? (
        <Notice tone="bad">
          <p>{error}</p>
        </Notice>
      ) : null}
      {codes ? (
        <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />
      ) : status?.enabled ? (
        <EnabledCard left={status.recovery_codes_left} />
      ) : status ? (
        <Enrol onEnabled={setCodes} />
      ) : null}
    </Screen>
  );
}

function StateLine({ on }: { on: boolean }) {
  const { t } = useTranslation("me");
  return (
    <div className="sec-state">
      <h2 className="card-title">{t("security.settings_row")}</h2>
      <span className={on ? "m-status m-status-good" : "m-status m-status-neutral"} data-testid="two-factor-state">
        {t(on ? "security.state_on" : "security.state_off")}
      </span>
    </div>
  );
}

/** Off: one button asks for a pending key; then the QR, the key as text and one code to prove it. */
function Enrol({ onEnabled }: { onEnabled: (codes: string[]) => void }) {
  const { t } = useTranslation("me");
  const setup = useFetcher<PageEnvelope<Setup>>({ key: "2fa-setup" });
  const [pending, setPending] = useState<Setup | null>(null);
  useEnvelope(setup.data, (data) => setPending(data));
  return (
    <section className="card form">
      <StateLine on={false} />
      <p className="muted">{t("security.note_off")}</p>
      {pending ? (
        <PendingKey setup={pending} onEnabled={onEnabled} onCancel={() => setPending(null)} />
      ) : (
        <setup.Form method="post">
          <input type="hidden" name="intent" value="setup" />
          <button type="submit" className="btn btn-primary btn-block" disabled={setup.state !== "idle"} data-testid="two-factor-start">
            {t("security.start")}
          </button>
        </setup.Form>
      )}
    </section>
  );
}

function PendingKey({ setup, onEnabled, onCancel }: { setup: Setup; onEnabled: (codes: string[]) => void; onCancel: () => void }) {
  const { t } = useTranslation("me");
  const { t: tc } = useTranslation();
  const ui = useUi();
  const guardFields = useFieldGuard();
  const { t: tw } = useTranslation("wallet");
  const enable = useFetcher<PageEnvelope<{ recovery_codes: string[] }>>({ key: "2fa-enable" });
  // Turning it on asks for the login password (decision 116); a wallet account without one proves itself with the code.
  const hasPassword = useRootData()?.user?.has_password !== false;
  useEnvelope(enable.data, (data, msg) => {
    ui.toast(msg);
    onEnabled(data.recovery_codes);
  });
  return (
    <enable.Form
      method="post"
      className="form"
      noValidate
      onSubmit={guardFields(hasPassword ? ["code", "password"] : ["code"])}
    >
      <input type="hidden" name="intent" value="enable" />
      <p>{t("security.step_scan")}</p>
      <div className="m-qr" role="img" aria-label={t("security.qr_alt")} data-testid="two-factor-qr">
        <QRCodeSVG value={setup.otpauth_url} size={168} marginSize={2} level="M" aria-hidden="true" />
      </div>
      <p className="muted">{t("security.step_key")}</p>
      <div className="m-address-box">
        <CopyValue value={setup.secret} testId="two-factor-key" label={t("security.copy_key")} />
      </div>
      <p>{t("security.step_code")}</p>
      <CodeField allowRecovery={false} />
      {hasPassword ? (
        <>
          <p>{t("security.step_password")}</p>
          <Field label={tw("confirm.password")} name="password" type="password" autoComplete="current-password" placeholder={tw("confirm.password_placeholder")} maxLength={64} />
        </>
      ) : null}
      <button type="submit" className="btn btn-primary btn-block" disabled={enable.state !== "idle"} data-testid="two-factor-enable">
        {t("security.enable")}
      </button>
      <button type="button" className="btn btn-plain btn-block" onClick={onCancel}>
        {t("security.cancel")}
      </button>
    </enable.Form>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useTranslation("me");
  const copy = useCopy();
  return (
    <section className="card form" data-testid="recovery-codes">
      <h2 className="card-title">{t("security.codes_title")}</h2>
      <Notice tone="warn">
        <p>{t("security.codes_note")}</p>
      </Notice>
      <ol className="sec-codes">
        {codes.map((c) => (
          <li key={c} className="m-mono">
            {c}
          </li>
        ))}
      </ol>
      <button type="button" className="btn btn-plain btn-block" onClick={() => copy(codes.join("\n"))}>
        {t("security.copy_codes")}
      </button>
      <button type="button" className="btn btn-primary btn-block" onClick={onDone} data-testid="recovery-codes-done">
        {t("security.codes_done")}
      </button>
    </section>
  );
}

/** On: what it guards, the recovery codes left, and turning it off with the password and a code. */
function EnabledCard({ left }: { left: number }) {
  const { t } = useTranslation("me");
  const { t: tw } = useTranslation("wallet");
  const { t: tc } = useTranslation();
  const ui = useUi();
  const disable = useGuardedFetcher<PageEnvelope>({ key: "2fa-disable" });
  // A wallet account without a password turns it off with a code alone.
  const hasPassword = useRootData()?.user?.has_password !== false;
  const form = useRef<HTMLFormElement>(null);
  useEnvelope(disable.data, (_data, msg) => ui.toast(msg));
  return (
    <>
      <section className="card form">
        <StateLine on />
        <p className="muted">{t("security.note_on")}</p>
        <p data-testid="recovery-left">{t("security.recovery_left", { n: left })}</p>
      </section>
      <disable.Form
        ref={form}
        method="post"
        className="card form"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          const target = e.currentTarget;
          if (missingFields(target, hasPassword ? ["password", "code"] : ["code"])) return ui.toast(tc("incomplete"));
          if (await ui.confirm(t("security.disable_confirm"))) disable.submit(target);
        }}
      >
        <h2 className="card-title">{t("security.disable_title")}</h2>
        <p className="muted">{t("security.disable_note")}</p>
        <input type="hidden" name="intent" value="disable" />
        {hasPassword ? (
          <Field label={tw("confirm.password")} name="password" type="password" autoComplete="current-password" placeholder={tw("confirm.password_placeholder")} maxLength={64} />
        ) : null}
        <CodeField />
        <button type="submit" className="btn btn-danger btn-block" disabled={disable.state !== "idle"} data-testid="two-factor-disable">
          {t("security.disable")}
        </button>
      </disable.Form>
    </>
  );
}
