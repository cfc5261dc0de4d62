import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Field } from "../../components/form";
import { useUi } from "../../components/ui";
import { adminApi, adminApiOrLogin } from "../../lib/admin.server";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import type { Contacts } from "../../lib/types";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

type SlideRow = { id: number; title: string; image_url: string; link: string; sort: number; enabled: number };

export async function loader({ request, context }: LoaderFunctionArgs) {
  return (await adminApiOrLogin<{ contacts: Contacts; slides: SlideRow[] }>(context, request, "/api/admin/content")).data;
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = Object.fromEntries(await request.formData()) as Record<string, string>;
  const { intent, id, ...body } = form;
  if (intent === "contacts") return adminApi(context, request, "/api/admin/contacts", body);
  if (intent === "slide") return adminApi(context, request, id ? `/api/admin/slides/${encodeURIComponent(id)}` : "/api/admin/slides", body);
  return { status: 400, code: 0, msg: "", data: null };
}

/** Contacts and banners, each change with a reason that lands in the audit log. */
export default function AdminContent() {
  const { t } = useTranslation("admin");
  const { contacts, slides } = useLoaderData<typeof loader>();
  return (
    <section>
      <h1>{t("content_title")}</h1>
      <SaveForm intent="contacts" title={t("contacts_title")}>
        <Field label={t("contact_wechat")} name="wechat" defaultValue={contacts.wechat} />
        <Field label={t("contact_mobile")} name="mobile" defaultValue={contacts.mobile} />
        <Field label={t("contact_email")} name="email" defaultValue={contacts.email} />
        <Field label={t("contact_hours")} name="hours" defaultValue={contacts.hours} />
      </SaveForm>
      <h2>{t("slides_title")}</h2>
      {[...slides, null].map((s) => (
        <SaveForm key={s?.id ?? "new"} intent="slide" id={s?.id} title={s ? `#${s.id}` : t("slide_add")}>
          <Field label={t("slide_title")} name="title" defaultValue={s?.title} />
          <Field label={t("slide_image")} name="image_url" defaultValue={s?.image_url} hint={t("slide_image_hint")} placeholder="/banners/1.svg" />
          <Field label={t("slide_link")} name="link" defaultValue={s?.link} />
          <Field label={t("slide_sort")} name="sort" type="number" defaultValue={s?.sort ?? 0} />
          <label className="check">
            <input type="checkbox" name="enabled" value="1" defaultChecked={s ? s.enabled === 1 : true} /> {t("slide_enabled")}
          </label>
        </SaveForm>
      ))}
    </section>
  );
}

function SaveForm({ intent, id, title, children }: { intent: string; id?: number; title: string; children: React.ReactNode }) {
  const { t } = useTranslation("admin");
  const ui = useUi();
  const fetcher = useFetcher<PageEnvelope>();
  useEnvelope(fetcher.data, (_d, msg) => ui.toast(msg));
  return (
    <fetcher.Form method="post" className="card form admin-form">
      <h3 className="card-title">{title}</h3>
      <input type="hidden" name="intent" value={intent} />
      {id ? <input type="hidden" name="id" value={id} /> : null}
      {children}
      <Field label={t("reason")} name="reason" required />
      <button type="submit" className="btn btn-primary" disabled={fetcher.state !== "idle"}>
        {t("save")}
      </button>
    </fetcher.Form>
  );
}
