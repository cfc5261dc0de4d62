import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher, useLoaderData } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import type { AdminBookingOut, AdminPromotionOut } from "../../../worker/api/resources/admin-promotions";
import { LANGUAGES } from "../../../locales/languages";
import { formatUsdtExact } from "../../../worker/domain/money/units";
import { PromotionPanel } from "../../components/admin/promotion-panel";
import { useConsoleFetcher } from "../../components/admin/step-up";
import { Field } from "../../components/form";
import { Empty } from "../../components/nav";
import { useUi } from "../../components/ui";
import { useOperator } from "../../lib/admin-console";
import { adminApi, adminApiOrLogin } from "../../lib/admin.server";
import { formatDateTime } from "../../lib/format";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

type Loaded = { items: AdminPromotionOut[]; pending: AdminBookingOut[]; four_eyes: { threshold: string; threshold_micro: number } };

export async function loader({ request, context }: LoaderFunctionArgs) {
  return (await adminApiOrLogin<Loaded>(context, request, "/api/admin/promotions")).data;
}

/** Saving terms and texts, or opening/closing: `intent` says which. */
export async function action({ request, context }: ActionFunctionArgs) {
  const { intent, id, ...form } = Object.fromEntries(await request.formData()) as Record<string, string>;
  if (intent === "toggle") return adminApi(context, request, `/api/admin/promotions/${/^\d{1,15}$/.test(id ?? "") ? id : "0"}/enabled`, form);
  return adminApi(context, request, "/api/admin/promotions/save", { ...form, id: id ?? "" });
}

const today = () => new Date().toISOString().slice(0, 10);
const EMPTY: AdminPromotionOut = {
  id: 0, kind: "recharge_bonus", texts: null, percent: "", percent_bp: 0, cap: "", cap_micro: 0, min_deposit: "", min_deposit_micro: 0,
  starts_at: 0, ends_at: 0, starts_on: "", ends_on: "", enabled: true, terms_by: null, opened_by: null, sort: 0, counts: null, frozen: false,
};

/**
 * Promotions: terms and words per language; a different operator opens what one set; the
 * bookings of each promotion with the grant panel; bonuses waiting for a second operator.
 */
export default function AdminPromotions() {
  const { t } = useTranslation("promotions");
  const { items, pending } = useLoaderData<typeof loader>();
  return (
    <section data-testid="promotions-page">
      <h1>{t("admin.title")}</h1>
      <p className="muted">{t("admin.note")}</p>
      <h2>{t("admin.pending_title")}</h2>
      <Pending rows={pending} />
      {[...items, EMPTY].map((p) => (
        <div key={p.id || "new"} className="card" data-testid={p.id ? "promotion-row" : "promotion-new"} data-id={p.id || undefined}>
          <PromotionForm row={p} />
          {p.id ? <Toggle row={p} /> : null}
          {p.id ? <Bookings promotionId={p.id} /> : null}
        </div>
      ))}
    </section>
  );
}

function useSave(resetOnSuccess: boolean) {
  const ui = useUi();
  const fetcher = useConsoleFetcher();
  const form = useRef<HTMLFormElement>(null);
  useEnvelope(fetcher.data, (_d, msg) => {
    ui.toast(msg);
    if (resetOnSuccess) form.current?.reset();
  });
  return { fetcher, form };
}

function Title({ row }: { row: AdminPromotionOut }) {
  const { t } = useTranslation("promotions");
  if (!row.id) return <h3 className="card-title">{t("admin.add")}</h3>;
  return (
    <h3 className="card-title">
      #{row.id} · {row.texts?.en.title}{" "}
      <span className={`pill pill-${row.enabled ? "approved" : "cancelled"}`} data-testid="promotion-open-state">
        {row.enabled ? t("admin.open") : t("admin.closed")}
      </span>
    </h3>
  );
}

function PromotionForm({ row }: { row: AdminPromotionOut }) {
  const { t } = useTranslation("promotions");
  const { fetcher, form } = useSave(!row.id);
  const frozen = row.frozen === true;
  return (
    <fetcher.Form ref={form} method="post" className="form admin-form" data-testid="promotion-form">
      <Title row={row} />
      <input type="hidden" name="id" value={row.id || ""} />
      <input type="hidden" name="kind" value="recharge_bonus" />
      <div className="admin-grid">
        <Field label={t("admin.percent")} name="percent" defaultValue={row.percent} inputMode="decimal" placeholder="10" readOnly={frozen} data-testid="promotion-percent" />
        <Field label={t("admin.cap")} name="cap" defaultValue={row.cap} inputMode="decimal" placeholder="50" readOnly={frozen} data-testid="promotion-cap" />
        <Field label={t("admin.min_deposit")} name="min_deposit" defaultValue={row.min_deposit} inputMode="decimal" placeholder="100" readOnly={frozen} data-testid="promotion-min" />
        <Field label={t("admin.starts_on")} name="starts_on" type="date" defaultValue={row.starts_on || today()} data-testid="promotion-starts" />
        <Field label={t("admin.ends_on")} name="ends_on" type="date" defaultValue={row.ends_on} data-testid="promotion-ends" />
        <Field label={t("admin.sort")} name="sort" type="number" min={0} max={1000} defaultValue={row.sort} />
      </div>
      {frozen ? <p className="muted" data-testid="promotion-frozen">{t("admin.frozen")}</p> : null}
      <Texts row={row} />
      <label className="check">
        <input type="checkbox" name="enabled" value="1" defaultChecked={row.enabled} /> {t("admin.enabled")}
      </label>
      <Field label={t("admin.reason")} name="reason" required maxLength={500} data-testid="promotion-reason" />
      <button type="submit" className="btn btn-primary" disabled={fetcher.state !== "idle"} data-testid="promotion-save">
        {t("admin.save")}
      </button>
    </fetcher.Form>
  );
}

/** Title and terms per language; English is required, the others fall back to it. */
function Texts({ row }: { row: AdminPromotionOut }) {
  const { t } = useTranslation("promotions");
  return (
    <details open={!row.id} className="promotion-texts">
      <summary>{t("admin.texts")}</summary>
      {LANGUAGES.map((l) => {
        const text = row.texts?.[l.key];
        return (
          <fieldset key={l.key} className="plain-fieldset" lang={l.key}>
            <Field label={t("admin.title_field", { lang: l.name })} name={`title_${l.key}`} defaultValue={text?.title ?? ""} maxLength={80} required={l.key === "en"} data-testid={`promotion-title-${l.key}`} />
            <div className="field">
              <label className="field-label" htmlFor={`promotion-${row.id}-terms-${l.key}`}>
                {t("admin.terms_field", { lang: l.name })}
              </label>
              <textarea id={`promotion-${row.id}-terms-${l.key}`} className="field-input" name={`terms_${l.key}`} defaultValue={text?.terms ?? ""} maxLength={2000} rows={2} data-testid={`promotion-terms-${l.key}`} />
            </div>
          </fieldset>
        );
      })}
    </details>
  );
}

/** Opening keeps every term and word; whoever set the terms cannot open them (the server refuses). */
function Toggle({ row }: { row: AdminPromotionOut }) {
  const { t } = useTranslation("promotions");
  const { fetcher, form } = useSave(true);
  return (
    <fetcher.Form ref={form} method="post" className="inline-action" data-testid="promotion-toggle">
      <input type="hidden" name="intent" value="toggle" />
      <input type="hidden" name="id" value={row.id} />
      <input type="hidden" name="enabled" value={row.enabled ? "0" : "1"} />
      <input name="reason" required maxLength={500} placeholder={t("admin.reason")} aria-label={t("admin.reason")} data-testid="promotion-toggle-reason" />
      <button type="submit" className={row.enabled ? "btn btn-danger" : "btn btn-plain"} disabled={fetcher.state !== "idle"} data-testid="promotion-toggle-submit">
        {row.enabled ? t("admin.close") : t("admin.open_action")}
      </button>
    </fetcher.Form>
  );
}

/** The promotion's bookings (loaded on demand), each opening the same panel the chat inbox shows. */
function Bookings({ promotionId }: { promotionId: number }) {
  const { t, i18n } = useTranslation("promotions");
  const fetcher = useFetcher<PageEnvelope<{ items: AdminBookingOut[] }>>();
  const [open, setOpen] = useState(false);
  const [userId, setUserId] = useState<number | null>(null);
  const load = useRef(fetcher.load);
  load.current = fetcher.load;
  useEffect(() => {
    if (open) load.current(`/admin/promotion-panel?bookings=1&promotion_id=${promotionId}`);
  }, [open, promotionId, userId]);
  const rows = fetcher.data?.code === 1 ? fetcher.data.data!.items : [];
  return (
    <details className="promotion-bookings" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)} data-testid="promotion-bookings">
      <summary>{t("admin.bookings")}</summary>
      {open && fetcher.data && rows.length === 0 ? <p className="muted">{t("admin.no_bookings")}</p> : null}
      <ul className="plain-list">
        {rows.map((b) => (
          <li key={b.id} className="row" data-testid="promotion-booking" data-user={b.user_id} data-status={b.status}>
            <span>
              {b.account ?? `#${b.user_id}`} · {formatDateTime(b.booked_at, i18n.language)} · {t(`admin.status.${b.status}`)}
            </span>
            <button type="button" className="btn btn-sm btn-plain" onClick={() => setUserId(userId === b.user_id ? null : b.user_id)} data-testid="promotion-booking-review">
              {t("admin.review")}
            </button>
          </li>
        ))}
      </ul>
      {userId !== null ? <PromotionPanel key={userId} userId={userId} promotionId={promotionId} /> : null}
    </details>
  );
}

function Pending({ rows }: { rows: AdminBookingOut[] }) {
  const { t, i18n } = useTranslation("promotions");
  const operator = useOperator();
  const [selected, setSelected] = useState<AdminBookingOut | null>(null);
  if (rows.length === 0) return <Empty />;
  return (
    <div className="card" data-testid="promotion-pending">
      <ul className="plain-list">
        {rows.map((b) => (
          <li key={b.id} className="row" data-testid="promotion-pending-row" data-id={b.id}>
            <span>
              #{b.promotion_id} · {b.account ?? `#${b.user_id}`} · {formatUsdtExact(b.bonus_micro ?? 0, i18n.language)} USDT · {t("admin.deposit", { id: b.deposit_id })}
              {operator?.id === b.granted_by ? <span className="sub-line">{t("admin.yours")}</span> : null}
            </span>
            <button type="button" className="btn btn-sm btn-plain" onClick={() => setSelected(selected?.id === b.id ? null : b)} data-testid="promotion-pending-review">
              {t("admin.review")}
            </button>
          </li>
        ))}
      </ul>
      {selected ? <PromotionPanel key={selected.id} userId={selected.user_id} promotionId={selected.promotion_id} /> : null}
    </div>
  );
}
