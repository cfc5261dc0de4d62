import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { adminApiOrLogin } from "../../lib/admin.server";
import { formatDateTime } from "../../lib/format";
import { keepsOutbox } from "../../../worker/mail/outbox";
export { shouldRevalidate } from "../../lib/revalidate";

type OutboxItem = { id: number; channel: "email" | "sms"; to: string; subject: string; text: string; created_at_ms: number };

/**
 * The local mailbox (decision 139): every mail and SMS this local or test server sent, newest
 * first, as a developer or a journey reads a code. It does not exist in production.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  if (!keepsOutbox(context.env)) throw new Response("Not found", { status: 404 });
  const to = new URL(request.url).searchParams.get("to") ?? "";
  const res = await adminApiOrLogin<{ items: OutboxItem[] }>(context, request, "/api/admin/mailbox", { to });
  return { items: res.code === 1 ? res.data.items : [], to };
}

export default function AdminMailbox() {
  const { t, i18n } = useTranslation("admin");
  const { items, to } = useLoaderData<typeof loader>();
  return (
    <section>
      <h1>{t("mailbox.title")}</h1>
      <p className="muted">{t("mailbox.note")}</p>
      <Form method="get" className="admin-filter">
        <input name="to" defaultValue={to} placeholder={t("mailbox.filter")} aria-label={t("mailbox.filter")} data-testid="mailbox-to" />
        <button type="submit" className="btn btn-plain">
          {t("mailbox.apply")}
        </button>
      </Form>
      {items.length === 0 ? (
        <p className="empty" data-testid="mailbox-empty">
          {t("mailbox.empty")}
        </p>
      ) : (
        <ol className="mailbox" data-testid="mailbox">
          {items.map((m) => (
            <li key={m.id} className="card mailbox-item" data-testid="mailbox-item" data-to={m.to}>
              <p className="muted">
                {formatDateTime(m.created_at_ms, i18n.language)} · {t(`mailbox.channel_${m.channel}`)} · {m.to}
              </p>
              {/* What was sent, as sent (in the recipient's language): data, not this page's words. */}
              {m.subject ? <p className="mailbox-subject">{`${t("mailbox.subject")}: ${m.subject}`}</p> : null}
              <pre className="mailbox-text" data-testid="mailbox-text">
                {m.text}
              </pre>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
