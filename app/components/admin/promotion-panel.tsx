import { useFetcher } from "@remix-run/react";
import { useEffect, useRef, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import type { AdminBookingOut, AdminPromotionOut, PanelDepositOut } from "../../../worker/api/resources/admin-promotions";
import { formatBp, formatUsdt, formatUsdtExact } from "../../../worker/domain/money/units";
import { formatDate, formatDateTime } from "../../lib/format";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useOperator } from "../../lib/admin-console";
import { useConsoleFetcher } from "./step-up";
import { useUi } from "../ui";

type Panel = { promotion: AdminPromotionOut; booking: AdminBookingOut | null; deposits: PanelDepositOut[]; four_eyes: { threshold_micro: number } };

const panelUrl = (userId: number, promotionId: number) => `/admin/promotion-panel?user_id=${encodeURIComponent(userId)}&promotion_id=${encodeURIComponent(promotionId)}`;

/**
 * One user's promotion beside a conversation: their booking, their latest deposits with the
 * bonus each would give (the server's own rule), grant or decline. Standalone: it loads and
 * posts through the /admin/promotion-panel resource route, so any console page can render it.
 */
export function PromotionPanel({ userId, promotionId }: { userId: number; promotionId: number }) {
  const { t } = useTranslation("promotions");
  const loader = useFetcher<PageEnvelope<Panel>>();
  const url = panelUrl(userId, promotionId);
  const load = useRef(loader.load);
  load.current = loader.load;
  useEffect(() => {
    load.current(url);
  }, [url]);
  const answer = loader.data;
  if (!answer) return <p className="muted">{t("panel.loading")}</p>;
  if (answer.code !== 1 || !answer.data) return <p className="notice notice-bad">{answer.msg || t("panel.error")}</p>;
  return <PanelBody panel={answer.data} userId={userId} reload={() => load.current(url)} />;
}

function PanelBody({ panel, userId, reload }: { panel: Panel; userId: number; reload: () => void }) {
  const { t, i18n } = useTranslation("promotions");
  const lng = i18n.language;
  const p = panel.promotion;
  const title = (p.texts && (p.texts[lng as keyof typeof p.texts] ?? p.texts.en)?.title) ?? "";
  return (
    <section className="card promotion-panel" data-testid="promotion-panel" data-user={userId} data-promotion={p.id}>
      <h3 className="card-title">{t("panel.title", { id: p.id, title })}</h3>
      <p className="muted">
        {t("panel.terms", { percent: formatBp(p.percent_bp, lng, { percent: true }), cap: formatUsdt(p.cap_micro, lng), min: formatUsdt(p.min_deposit_micro, lng), from: p.starts_on, to: p.ends_on })}
      </p>
      <p className="muted">{t("panel.four_eyes_note", { threshold: formatUsdt(panel.four_eyes.threshold_micro, lng) })}</p>
      <BookingState booking={panel.booking} reload={reload} />
      <h4>{t("panel.deposits")}</h4>
      {panel.deposits.length === 0 ? (
        <p className="muted">{t("panel.no_deposits")}</p>
      ) : (
        <ul className="plain-list" data-testid="promotion-panel-deposits">
          {panel.deposits.map((d) => (
            <DepositLine key={d.id} d={d} canGrant={panel.booking?.status === "booked" && p.enabled} promotionId={p.id} userId={userId} reload={reload} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** Posts to the panel's resource route; on success the panel loads again. */
function usePanelAction(reload: () => void) {
  const ui = useUi();
  const fetcher = useConsoleFetcher();
  useEnvelope(fetcher.data, (_d, msg) => {
    if (msg) ui.toast(msg);
    reload();
  });
  const submit = (data: Record<string, string>) => fetcher.submit(data, { method: "post", action: "/admin/promotion-panel" });
  return { submit, busy: fetcher.state !== "idle" };
}

function BookingState({ booking, reload }: { booking: AdminBookingOut | null; reload: () => void }) {
  const { t, i18n } = useTranslation("promotions");
  const lng = i18n.language;
  const operator = useOperator();
  const { submit, busy } = usePanelAction(reload);
  if (!booking) return <p className="notice" data-testid="promotion-panel-state" data-status="none">{t("panel.booking_none")}</p>;
  const sentence =
    booking.status === "booked"
      ? t("panel.booking_booked", { date: formatDateTime(booking.booked_at, lng) })
      : booking.status === "pending"
        ? t("panel.booking_pending", { amount: formatUsdtExact(booking.bonus_micro ?? 0, lng), id: booking.deposit_id })
        : booking.status === "granted"
          ? t("panel.booking_granted", { amount: formatUsdtExact(booking.bonus_micro ?? 0, lng), date: formatDate(booking.decided_at ?? 0, lng) })
          : t("panel.booking_declined", { reason: booking.decline_reason });
  const mayConfirm = booking.status === "pending" && operator?.id !== booking.granted_by;
  return (
    <div className="decide">
      <p className={`notice${booking.status === "granted" ? " notice-good" : booking.status === "declined" ? " notice-bad" : ""}`} data-testid="promotion-panel-state" data-status={booking.status}>
        {sentence}
      </p>
      {mayConfirm ? (
        <button type="button" className="btn btn-primary btn-sm" disabled={busy} onClick={() => submit({ intent: "confirm", booking_id: String(booking.id) })} data-testid="promotion-confirm">
          {t("panel.confirm")}
        </button>
      ) : null}
      {booking.status === "booked" || booking.status === "pending" ? <DeclineForm bookingId={booking.id} submit={submit} busy={busy} /> : null}
    </div>
  );
}

function DeclineForm({ bookingId, submit, busy }: { bookingId: number; submit: (d: Record<string, string>) => void; busy: boolean }) {
  const { t } = useTranslation("promotions");
  const ui = useUi();
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const reason = String(new FormData(e.currentTarget).get("reason") ?? "").trim();
    if (!reason) return ui.toast(t("panel.decline_reason"));
    submit({ intent: "decline", booking_id: String(bookingId), reason });
    e.currentTarget.reset();
  }
  return (
    <form className="inline-action" onSubmit={onSubmit} noValidate data-testid="promotion-decline">
      <input name="reason" maxLength={500} placeholder={t("panel.decline_reason")} aria-label={t("panel.decline_reason")} data-testid="promotion-decline-reason" />
      <button type="submit" className="btn btn-danger btn-sm" disabled={busy}>
        {t("panel.decline")}
      </button>
    </form>
  );
}

function DepositLine({ d, canGrant, promotionId, userId, reload }: { d: PanelDepositOut; canGrant: boolean; promotionId: number; userId: number; reload: () => void }) {
  const { t, i18n } = useTranslation("promotions");
  const lng = i18n.language;
  const ui = useUi();
  const { submit, busy } = usePanelAction(reload);
  const qualifies = d.eligibility === "ok" && !d.used;
  async function grant() {
    if (!(await ui.confirm(t("panel.grant_confirm", { amount: formatUsdtExact(d.bonus_micro, lng), id: d.id })))) return;
    submit({ intent: "grant", promotion_id: String(promotionId), user_id: String(userId), deposit_id: String(d.id) });
  }
  return (
    <li className="row" data-testid="promotion-panel-deposit" data-id={d.id} data-eligibility={d.eligibility}>
      <span className="destination">
        <span>
          #{d.id} · {formatDateTime(d.created_at, lng)} · {d.credited_micro === null ? t("panel.not_credited", { amount: d.amount }) : t("panel.credited", { amount: formatUsdt(d.credited_micro, lng) })}
        </span>
        <span className={d.eligibility === "ok" && !d.used ? "amount-pos" : "sub-line"}>{d.used ? t("panel.used") : d.eligibility === "ok" ? t("panel.gives", { amount: formatUsdtExact(d.bonus_micro, lng) }) : t(`panel.eligibility.${d.eligibility}`)}</span>
      </span>
      {canGrant && qualifies ? (
        <button type="button" className="btn btn-primary btn-sm" disabled={busy} onClick={grant} data-testid="promotion-grant">
          {t("panel.grant", { amount: formatUsdtExact(d.bonus_micro, lng) })}
        </button>
      ) : null}
    </li>
  );
}
