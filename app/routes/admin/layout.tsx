import { redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Form, NavLink, Outlet, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { StepUpProvider } from "../../components/admin/step-up";
import { adminApi, adminApiOrLogin } from "../../lib/admin.server";
import { clearTokenCookie } from "../../lib/session.server";
import { keepsOutbox } from "../../../worker/mail/outbox";
import adminStyles from "../../styles/admin.css";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: adminStyles }];

/**
 * The console layout and its guard: every /admin page needs an operator session. It also
 * counts what waits for a decision (one-row queries: only `total` is read) for the nav badges.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const [me, deposits, withdrawals, adjustments] = await Promise.all([
    adminApiOrLogin<{ id: number; account: string }>(context, request, "/api/admin/me"),
    adminApi<{ total: number }>(context, request, "/api/admin/deposits", { status: "review", row: 1 }),
    adminApi<{ total: number }>(context, request, "/api/admin/withdrawals", { status: "review", row: 1 }),
    adminApi<{ total: number }>(context, request, "/api/admin/adjustments", { status: "pending", row: 1 }),
  ]);
  return {
    operator: me.data,
    // The local mailbox exists only where an outbox is kept (never in production, decision 139).
    mailbox: keepsOutbox(context.env),
    waiting: {
      deposits: deposits.code === 1 ? deposits.data.total : 0,
      withdrawals: withdrawals.code === 1 ? withdrawals.data.total : 0,
      adjustments: adjustments.code === 1 ? adjustments.data.total : 0,
    },
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  await adminApi(context, request, "/api/admin/logout");
  return redirect("/admin/login", { headers: { "set-cookie": await clearTokenCookie(request, "operator") } });
}

function Badge({ n, label }: { n: number; label: string }) {
  if (!n) return null;
  return (
    <span className="nav-badge" aria-label={label} title={label}>
      {n > 99 ? "99+" : n}
    </span>
  );
}

export default function AdminLayout() {
  const { t } = useTranslation("admin");
  const { t: tp } = useTranslation("promotions");
  const { t: ts } = useTranslation("service");
  const { operator, waiting, mailbox } = useLoaderData<typeof loader>();
  return (
    <div className="admin">
      <header className="admin-header">
        <strong className="admin-brand">{t("console")}</strong>
        <nav className="admin-nav">
          <NavLink to="/admin" end>
            {t("nav_overview")}
          </NavLink>
          <NavLink to="/admin/deposits" data-testid="nav-deposits">
            {t("nav_deposits")}
            <Badge n={waiting.deposits} label={t("waiting_review", { count: waiting.deposits })} />
          </NavLink>
          <NavLink to="/admin/withdrawals" data-testid="nav-withdrawals">
            {t("nav_withdrawals")}
            <Badge n={waiting.withdrawals} label={t("waiting_review", { count: waiting.withdrawals })} />
          </NavLink>
          <NavLink to="/admin/profiles" data-testid="nav-profiles">
            {t("nav_profiles")}
          </NavLink>
          <NavLink to="/admin/users">{t("nav_users")}</NavLink>
          <NavLink to="/admin/adjustments" data-testid="nav-adjustments">
            {t("nav_adjustments")}
            <Badge n={waiting.adjustments} label={t("waiting_approval", { count: waiting.adjustments })} />
          </NavLink>
          <NavLink to="/admin/money">{t("nav_money")}</NavLink>
          <NavLink to="/admin/products">{t("nav_products")}</NavLink>
          <NavLink to="/admin/earn" data-testid="nav-earn">
            {t("nav_earn")}
          </NavLink>
          <NavLink to="/admin/promotions" data-testid="nav-promotions">
            {tp("admin.nav")}
          </NavLink>
          <NavLink to="/admin/ledger">{t("nav_ledger")}</NavLink>
          <NavLink to="/admin/audit">{t("nav_audit")}</NavLink>
          <NavLink to="/admin/operations" data-testid="nav-operations">
            {t("operations.nav")}
          </NavLink>
          <NavLink to="/admin/content">{t("nav_content")}</NavLink>
          {mailbox ? (
            <NavLink to="/admin/mailbox" data-testid="nav-mailbox">
              {t("mailbox.nav")}
            </NavLink>
          ) : null}
          <NavLink to="/admin/service" data-testid="nav-service">
            {ts("inbox.nav")}
          </NavLink>
        </nav>
        <Form method="post" action="/admin" className="admin-who">
          <span>{t("signed_in_as", { account: operator.account })}</span>
          <button type="submit" className="btn btn-plain">
            {t("logout")}
          </button>
        </Form>
      </header>
      <main className="admin-main">
        <StepUpProvider>
          <Outlet />
        </StepUpProvider>
      </main>
    </div>
  );
}
