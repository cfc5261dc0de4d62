import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData, useNavigate } from "@remix-run/react";
import { useGuardedFetcher } from "../../lib/tap-guard";
import { useTranslation } from "react-i18next";
import type { UserPromotionOut } from "../../../worker/api/resources/promotions";
import { formatBp, formatUsdt, formatUsdtExact } from "../../../worker/domain/money/units";
import { StatusBadge, type StatusTone } from "../../components/money/status-badge";
import { Notice } from "../../components/money/notice";
import { AppLink, Screen } from "../../components/nav";
import { useUi } from "../../components/ui";
import { api, apiOrLogin } from "../../lib/api.server";
import { formatDate } from "../../lib/format";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { useRootData } from "../../root";
import moneyStyles from "../../styles/money.css";
import { serviceUrl } from "../../lib/service";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const r = await apiOrLogin<{ items: UserPromotionOut[] }>(context, request, "/api/index/activity");
  if (r.code !== 1) throw new Response(r.msg, { status: r.status >= 400 ? r.status : 500 });
  return { items: r.data.items };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  return api(context, request, "/api/index/activity_book", { id: String(form.get("id") ?? "") });
}

/** The customer-service conversation with this promotion attached (the chat page reads `context`). */

const TONE: Record<UserPromotionOut["state"], StatusTone> = { not_booked: "neutral", booked: "pending", granted: "good", declined: "bad" };
const DAY_MS = 86_400_000;

/** Promotions: each card says what it pays in words before anything is booked, and where the user stands. */
export default function Activity() {
  const { t } = useTranslation("promotions");
  const { items } = useLoaderData<typeof loader>();
  return (
    <Screen title={t("activity.title")} back>
      <Notice testId="activity-how">
        <p>{t("activity.how")}</p>
      </Notice>
      {items.length === 0 ? (
        <p className="muted" data-testid="activity-empty">
          {t("activity.empty")}
        </p>
      ) : (
        <ul className="m-list" aria-label={t("activity.title")}>
          {items.map((p) => (
            <PromotionCard key={p.id} p={p} />
          ))}
        </ul>
      )}
    </Screen>
  );
}

function PromotionCard({ p }: { p: UserPromotionOut }) {
  const { t } = useTranslation("promotions");
  const locale = useRootData()?.locale ?? "en";
  const day = (ms: number) => new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" }).format(new Date(ms));
  return (
    <li className="card m-item" data-testid="promotion" data-id={p.id} data-state={p.state}>
      <div className="m-item-head">
        <div>
          <h2 className="m-item-amount" style={{ fontSize: 17 }} lang={p.lang}>
            {p.title}
          </h2>
          <p className="m-item-sub">{t("activity.period", { from: day(p.starts_at), to: day(p.ends_at - DAY_MS) })}</p>
        </div>
        <StatusBadge status={p.state} tone={TONE[p.state]} label={t(`activity.state.${p.state}`)} />
      </div>
      {/* The money terms in our own words, from the numbers the bonus is computed with: whatever the operator's text says. */}
      <p style={{ margin: 0, fontSize: 14, lineHeight: 1.5 }} data-testid="promotion-terms-words">
        {t("activity.terms_words", { percent: formatBp(p.percent_bp, locale, { percent: true }), cap: formatUsdt(p.cap_micro, locale), min: formatUsdt(p.min_deposit_micro, locale) })}
      </p>
      {p.terms ? (
        <p className="m-item-sub" style={{ whiteSpace: "pre-wrap", display: "block", fontSize: 13 }} lang={p.lang} data-testid="promotion-terms">
          {p.terms}
        </p>
      ) : null}
      <p className={`m-explain m-explain-${TONE[p.state]}`} data-testid="promotion-state">
        <StateSentence p={p} />
      </p>
      <Actions p={p} />
    </li>
  );
}

function StateSentence({ p }: { p: UserPromotionOut }) {
  const { t } = useTranslation("promotions");
  const locale = useRootData()?.locale ?? "en";
  if (p.state === "granted") return <>{t("activity.sentence.granted", { amount: formatUsdtExact(p.bonus_micro!, locale), date: formatDate(p.granted_at!, locale) })}</>;
  if (p.state === "declined") return <>{t("activity.sentence.declined", { reason: p.decline_reason, date: formatDate(p.declined_at!, locale) })}</>;
  if (p.state === "booked") return <>{t("activity.sentence.booked", { date: formatDate(p.booked_at!, locale) })}</>;
  return <>{p.bookable ? t("activity.sentence.not_booked") : t("activity.sentence.not_bookable")}</>;
}

/** Book (then straight into the conversation with the promotion attached), or go back to it. */
function Actions({ p }: { p: UserPromotionOut }) {
  const { t } = useTranslation("promotions");
  const ui = useUi();
  const navigate = useNavigate();
  const fetcher = useGuardedFetcher<PageEnvelope>();
  useEnvelope(fetcher.data, (_d, msg) => {
    ui.toast(msg);
    navigate(serviceUrl("promotion", p.id));
  });
  if (p.state === "booked")
    return (
      <div className="m-item-actions">
        <AppLink to={serviceUrl("promotion", p.id)} className="btn btn-primary" data-testid="promotion-chat">
          {t("activity.open_chat")}
        </AppLink>
      </div>
    );
  if (p.state === "granted")
    return (
      <div className="m-item-actions">
        <AppLink to="/pages/me/sub/record" className="btn btn-plain" data-testid="promotion-statement">
          {t("activity.statement")}
        </AppLink>
      </div>
    );
  if (p.state !== "not_booked" || !p.bookable) return null;
  async function book() {
    if (!(await ui.confirm(t("activity.book_confirm", { title: p.title })))) return;
    fetcher.submit({ id: String(p.id) }, { method: "post" });
  }
  return (
    <div className="m-item-actions">
      <button type="button" className="btn btn-primary" onClick={book} disabled={fetcher.state !== "idle"} data-testid="promotion-book">
        {t("activity.book")}
      </button>
    </div>
  );
}
