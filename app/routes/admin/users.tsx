import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { TableWrap } from "../../components/admin/money";
import { Empty } from "../../components/nav";
import { adminApiOrLogin } from "../../lib/admin.server";
import { formatDateTime } from "../../lib/format";
export { shouldRevalidate } from "../../lib/revalidate";

type UserRow = { id: number; account: string; created_at_ms: number };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const q = (new URL(request.url).searchParams.get("q") ?? "").trim().slice(0, 40);
  const res = await adminApiOrLogin<UserRow[]>(context, request, "/api/admin/users", { q });
  return { q, users: res.code === 1 ? res.data : [], error: res.code === 1 ? "" : res.msg };
}

/** Find a user by account (part of it) or id, then open their balances and statement. */
export default function AdminUsers() {
  const { t, i18n } = useTranslation("admin");
  const { q, users, error } = useLoaderData<typeof loader>();
  return (
    <section>
      <h1>{t("users.title")}</h1>
      <Form method="get" className="admin-filter" role="search">
        <input type="search" name="q" defaultValue={q} placeholder={t("users.search")} aria-label={t("users.search")} maxLength={40} data-testid="user-search" />
        <button type="submit" className="btn btn-plain">
          {t("users.search_submit")}
        </button>
      </Form>
      <p className="muted">{q ? t("users.results_for", { q, count: users.length }) : t("users.latest")}</p>
      {error ? <p className="notice notice-bad">{error}</p> : null}
      {users.length === 0 ? (
        <Empty />
      ) : (
        <TableWrap>
          <table className="table" data-testid="users-table">
            <thead>
              <tr>
                <th>{t("col.id")}</th>
                <th>{t("col.account")}</th>
                <th>{t("users.col_registered")}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <tr key={u.id} data-testid="user-row" data-id={u.id}>
                  <td>#{u.id}</td>
                  <td>
                    <Link to={`/admin/users/${u.id}`}>{u.account}</Link>
                  </td>
                  <td>{formatDateTime(u.created_at_ms, i18n.language)}</td>
                  <td className="num">
                    <Link to={`/admin/users/${u.id}`} className="btn btn-sm btn-plain">
                      {t("users.open")}
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {users.length >= 50 ? <p className="muted">{t("users.capped")}</p> : null}
    </section>
  );
}
