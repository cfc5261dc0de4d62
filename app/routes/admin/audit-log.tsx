import { TableWrap } from "../../components/admin/money";
import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { auditActionKey } from "../../../worker/domain/audit/actions";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Empty } from "../../components/nav";
import { adminApiOrLogin } from "../../lib/admin.server";
import { formatDateTime } from "../../lib/format";
export { shouldRevalidate } from "../../lib/revalidate";

type AuditItem = { id: number; operator: string | null; action: string; target: string; reason: string; data_json: string; created_at_ms: number };
const ROWS = 50;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const page_no = Math.max(1, Number(url.searchParams.get("page") ?? 1) || 1);
  const action = url.searchParams.get("action") ?? "";
  const res = await adminApiOrLogin<{ items: AuditItem[]; total: number }>(context, request, "/api/admin/audit", { page_no, row: ROWS, action });
  return { ...res.data, page_no, action };
}

export default function AdminAudit() {
  const { t, i18n } = useTranslation("admin");
  const { items, total, page_no, action } = useLoaderData<typeof loader>();
  const pages = Math.max(1, Math.ceil(total / ROWS));
  // An action the console has no words for (an older release's) reads as its code.
  const label = (a: string) => (i18n.exists(`admin:${auditActionKey(a)}`) ? t(auditActionKey(a)) : a);
  const link = (p: number) => `?page=${p}${action ? `&action=${encodeURIComponent(action)}` : ""}`;
  return (
    <section>
      <h1>{t("audit_title")}</h1>
      <p className="muted">{t("audit_note")}</p>
      <Form method="get" className="admin-filter">
        <input name="action" defaultValue={action} placeholder={t("filter_action")} aria-label={t("filter_action")} />
        <button type="submit" className="btn btn-plain">
          {t("filter_apply")}
        </button>
      </Form>
      {items.length === 0 ? (
        <Empty />
      ) : (
        <TableWrap>
          <table className="table" data-testid="audit-table">
            <thead>
              <tr>
                <th>{t("col_time")}</th>
                <th>{t("col_operator")}</th>
                <th>{t("col_action")}</th>
                <th>{t("col_target")}</th>
                <th>{t("col_reason")}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((e) => (
                <tr key={e.id}>
                  <td>{formatDateTime(e.created_at_ms, i18n.language)}</td>
                  <td>{e.operator}</td>
                  <td title={e.action}>{label(e.action)}</td>
                  <td>{e.target}</td>
                  <td>{e.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <nav className="pager">
        {page_no > 1 ? <Link to={link(page_no - 1)}>{t("prev")}</Link> : <span />}
        <span>{t("page_of", { page: `${page_no} / ${pages}` })}</span>
        {page_no < pages ? <Link to={link(page_no + 1)}>{t("next")}</Link> : <span />}
      </nav>
    </section>
  );
}
