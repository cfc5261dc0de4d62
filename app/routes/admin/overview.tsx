import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { adminApiOrLogin } from "../../lib/admin.server";
export { shouldRevalidate } from "../../lib/revalidate";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const res = await adminApiOrLogin<{ users: number; users_24h: number; active_sessions: number; operators: number }>(context, request, "/api/admin/overview");
  return res.data;
}

export default function AdminOverview() {
  const { t } = useTranslation("admin");
  const s = useLoaderData<typeof loader>();
  const stats = [
    [t("stat_users"), s.users],
    [t("stat_users_today"), s.users_24h],
    [t("stat_sessions"), s.active_sessions],
    [t("stat_operators"), s.operators],
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
    </section>
  );
}
