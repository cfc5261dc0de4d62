import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher, useLoaderData, useRevalidator } from "@remix-run/react";
import { useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Field } from "../../components/form";
import { ConfirmPasswordField } from "../../components/money/confirm-password";
import { CodeField } from "../../components/code-field";
import { useTwoFactorOn } from "../../lib/two-factor";
import { useDateTime } from "../../components/money/local-time";
import { Notice } from "../../components/money/notice";
import { Screen } from "../../components/nav";
import { useUi } from "../../components/ui";
import { api, apiOrLogin } from "../../lib/api.server";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useRootData } from "../../root";
import moneyStyles from "../../styles/money.css";
import { formatUsdtExact } from "../../../worker/domain/money/units";
export { clientAction } from "../../lib/client-action";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

type LimitValue = { value: string | null; value_micro: number | null };
type Limit = LimitValue & { kind: string; pending: (LimitValue & { effective_at_ms: number }) | null };
type Limits = {
  list: Limit[];
  exclusion: { kind: "cool_off" | "exclusion"; started_at_ms: number; until_ms: number } | null;
  now_ms: number;
  exclusion_days: Record<"cool_off" | "exclusion", { min: number; max: number }>;
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  const r = await apiOrLogin<Limits>(context, request, "/api/user/limits");
  return { limits: r.code === 1 ? r.data : null, error: r.code === 1 ? null : r.msg };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { intent, ...form } = Object.fromEntries(await request.formData()) as Record<string, string>;
  if (intent === "exclude") return api(context, request, "/api/user/self_exclude", { kind: form.kind, days: form.days, password: form.password, code: form.code ?? "" });
  // Only the limits the user changed are sent: an unchanged one must not cancel a waiting change.
  return api(context, request, "/api/user/limits/set", form);
}

/** Responsible trading: the user's own limits, and a cool-off or self-exclusion. */
export default function LimitsPage() {
  const { t } = useTranslation("me");
  const { limits, error } = useLoaderData<typeof loader>();
  return (
    <Screen title={t("limits.title")} back>
      <p className="muted m-intro">{t("limits.intro")}</p>
      {error || !limits ? (
        <Notice tone="bad">{error}</Notice>
      ) : (
        <>
          {limits.exclusion ? <ExclusionNotice exclusion={limits.exclusion} /> : null}
          <LimitsForm limits={limits} />
          {limits.exclusion?.kind === "exclusion" ? null : <ExcludeForm limits={limits} />}
        </>
      )}
    </Screen>
  );
}

function ExclusionNotice({ exclusion }: { exclusion: NonNullable<Limits["exclusion"]> }) {
  const { t } = useTranslation("me");
  const dateTime = useDateTime(useRootData()?.locale ?? "en");
  return (
    <Notice tone="warn" title={t(`limits.active_${exclusion.kind}`, { until: dateTime(exclusion.until_ms) })} testId="exclusion-active">
      <p>{t("limits.active_effects")}</p>
    </Notice>
  );
}

function LimitsForm({ limits }: { limits: Limits }) {
  const { t } = useTranslation("me");
  const ui = useUi();
  const fetcher = useFetcher<PageEnvelope>();
  const revalidator = useRevalidator();
  useEnvelope(fetcher.data, (_d, msg) => {
    ui.toast(msg);
    revalidator.revalidate();
  });
  // The value in force, as typed into the field: what "unchanged" compares against.
  const initial = (l: Limit) => l.value ?? "";
  return (
    <fetcher.Form
      method="post"
      className="card form"
      noValidate
      data-testid="limits-form"
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const changed = new FormData();
        for (const l of limits.list) {
          const v = String(data.get(l.kind) ?? "").trim();
          if (v !== initial(l)) changed.set(l.kind, v);
        }
        if ([...changed.keys()].length === 0) return ui.toast(t("limits.nothing_changed"));
        fetcher.submit(changed, { method: "post" });
      }}
    >
      <h2 className="card-title">{t("limits.limits_title")}</h2>
      <p className="muted">{t("limits.rule")}</p>
      {limits.list.map((l) => (
        <LimitField key={`${l.kind}:${initial(l)}:${l.pending?.effective_at_ms ?? 0}`} limit={l} />
      ))}
      <button type="submit" className="btn btn-primary btn-block" disabled={fetcher.state !== "idle"} data-testid="limits-save">
        {t("limits.save")}
      </button>
    </fetcher.Form>
  );
}

function LimitField({ limit }: { limit: Limit }) {
  const { t } = useTranslation("me");
  const locale = useRootData()?.locale ?? "en";
  const dateTime = useDateTime(locale);
  const count = limit.kind === "max_open_orders";
  const shown = (v: LimitValue) => (v.value === null ? t("limits.none") : count ? v.value : formatUsdtExact(v.value_micro ?? 0, locale));
  const hint = limit.pending
    ? t("limits.pending", { value: shown(limit.pending), time: dateTime(limit.pending.effective_at_ms) })
    : t("limits.in_force", { value: shown(limit) });
  return (
    <Field
      label={t(`limits.kind.${limit.kind}`)}
      name={limit.kind}
      inputMode={count ? "numeric" : "decimal"}
      defaultValue={limit.value ?? ""}
      placeholder={t("limits.none")}
      hint={hint}
      maxLength={16}
      data-testid={`limit-${limit.kind}`}
    />
  );
}

function ExcludeForm({ limits }: { limits: Limits }) {
  const { t } = useTranslation("me");
  const ui = useUi();
  const fetcher = useFetcher<PageEnvelope>();
  const revalidator = useRevalidator();
  const [kind, setKind] = useState<"cool_off" | "exclusion">("cool_off");
  const form = useRef<HTMLFormElement>(null);
  const range = limits.exclusion_days[kind];
  const twoFactor = useTwoFactorOn();
  useEnvelope(fetcher.data, (_d, msg) => {
    ui.toast(msg);
    // The password is not left in the field once it has done its work.
    form.current?.reset();
    revalidator.revalidate();
  });
  return (
    <fetcher.Form
      ref={form}
      method="post"
      className="card form"
      noValidate
      data-testid="exclude-form"
      onSubmit={async (e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        const days = String(data.get("days") ?? "").trim();
        if (!days || !String(data.get("password") ?? "")) return ui.toast(t("limits.exclude_incomplete"));
        if (!(await ui.confirm(t("limits.exclude_confirm")))) return;
        data.set("intent", "exclude");
        data.set("kind", kind);
        fetcher.submit(data, { method: "post" });
      }}
    >
      <h2 className="card-title">{t("limits.exclude_title")}</h2>
      <div className="lang-list" role="radiogroup" aria-label={t("limits.exclude_title")}>
        {(["cool_off", "exclusion"] as const).map((k) => (
          <button key={k} type="button" role="radio" aria-checked={kind === k} className={kind === k ? "lang-item lang-active" : "lang-item"} onClick={() => setKind(k)} data-testid={`exclude-${k}`}>
            <span>{t(`limits.${k}`)}</span>
            {kind === k ? <span aria-hidden="true">✓</span> : null}
          </button>
        ))}
      </div>
      <Field label={t("limits.days")} name="days" inputMode="numeric" maxLength={4} hint={t("limits.days_range", range)} data-testid="exclude-days" />
      <Notice tone="warn" title={t("limits.consequences_title")}>
        <ul className="limits-effects">
          <li>{t("limits.consequence_orders")}</li>
          <li>{t("limits.consequence_deposits")}</li>
          <li>{t("limits.consequence_withdrawals")}</li>
          <li>{t("limits.consequence_final")}</li>
        </ul>
      </Notice>
      <ConfirmPasswordField />
      {twoFactor ? <CodeField /> : null}
      <button type="submit" className="btn btn-danger btn-block" disabled={fetcher.state !== "idle"} data-testid="exclude-submit">
        {t(`limits.start_${kind}`)}
      </button>
    </fetcher.Form>
  );
}
