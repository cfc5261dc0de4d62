import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { adminApiOrLogin } from "../../lib/admin.server";
import { formatUsdtExact } from "../../../worker/domain/money/units";
export { shouldRevalidate } from "../../lib/revalidate";

type Overview = { users: number; users_24h: number; active_sessions: number; operators: number; earn_locked_micro: number; earn_paid_today_micro: number; earn_due_24h_micro: number };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const res = await adminApiOrLogin<Overview>(context, request, "/api/admin/overview");
  return res.data;
}

export default function AdminOverview() {
  const { t, i18n } = useTranslation("admin");
  const s = useLoaderData<typeof loader>();
  const usdt = (micro: number) => `${formatUsdtExact(micro, i18n.language)} USDT`;
  const stats = [
    [t("stat_users"), s.users],
    [t("stat_users_today"), s.users_24h],
    [t("stat_sessions"), s.active_sessions],
    [t("stat_operators"), s.operators],
  ] as const;
  // Earn: principal locked in the pool, rewards credited since UTC midnight, rewards the
  // accrual will credit for days completing within the next 24 hours.
  const earn = [
    ["earn-locked", t("stat_earn_locked"), usdt(s.earn_locked_micro)],
    ["earn-paid-today", t("stat_earn_paid_today"), usdt(s.earn_paid_today_micro)],
    ["earn-due", t("stat_earn_due"), usdt(s.earn_due_24h_micro)],
  ] as const;
  return (
    <section>
      <h1>{t("overview_title")}</h1>
      <div className="stats">
        {stats.map(([label, value]) => (
          <div className="card stat" key={label}>
            <span className="muted">{label}</span>
            <strong>{value}</strong>
          </div>
        ))}
      </div>
      <h2>{t("earn_figures")}</h2>
      <div className="stats" data-testid="overview-earn">
        {earn.map(([id, label, value]) => (
          <div className="card stat" key={id} data-testid={`stat-${id}`}>
            <span className="muted">{label}</span>
            <strong>{value}</strong>
          </div>
        ))}
      </div>
    </section>
  );
}
