import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Form, NavLink, Outlet, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { adminApi, adminApiOrLogin } from "../lib/admin.server";
import { clearTokenCookie } from "../lib/session.server";
export { shouldRevalidate } from "../lib/revalidate";

/** The console layout and its guard: every /admin page needs an operator session. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const res = await adminApiOrLogin<{ id: number; account: string }>(context, request, "/api/admin/me");
  return { operator: res.data };
}

export async function action({ request, context }: ActionFunctionArgs) {
  await adminApi(context, request, "/api/admin/logout");
  return redirect("/admin/login", { headers: { "set-cookie": await clearTokenCookie(request, "operator") } });
}

export default function AdminLayout() {
  const { t } = useTranslation("admin");
  const { operator } = useLoaderData<typeof loader>();
  return (
    <div className="admin">
      <header className="admin-header">
        <strong>{t("console")}</strong>
        <nav className="admin-nav">
          <NavLink to="/admin" end>
            {t("nav_overview")}
          </NavLink>
          <NavLink to="/admin/audit">{t("nav_audit")}</NavLink>
          <NavLink to="/admin/content">{t("nav_content")}</NavLink>
        </nav>
        <Form method="post" action="/admin" className="admin-who">
          <span>{t("signed_in_as", { account: operator.account })}</span>
          <button type="submit" className="btn btn-plain">
            {t("logout")}
          </button>
        </Form>
      </header>
      <main className="admin-main">
        <Outlet />
      </main>
    </div>
  );
}
