import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import type { FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { Decided, InlineAction, QueuePage, Screenshot, SubmitterCells } from "../../components/admin/money";
import { useAction } from "../../lib/admin-console";
import { useUi } from "../../components/ui";
import { decideInQueue, loadQueue } from "../../lib/admin-queue.server";
import type { ProfileView } from "../me/profile";
export { clientAction } from "../../lib/client-action";
export { shouldRevalidate } from "../../lib/revalidate";

/** A profile as the user sees it, plus whose it is and when it was sent and decided. */
type ProfileItem = ProfileView & { user_id: number; account: string; submitted_at_ms: number; decided_at_ms: number | null };

const STATUSES = ["submitted", "verified", "rejected", "all"] as const;

export async function loader({ request, context }: LoaderFunctionArgs) {
  return loadQueue<ProfileItem, (typeof STATUSES)[number]>(context, request, "/api/admin/profiles", STATUSES);
}

export const action = ({ request, context }: ActionFunctionArgs) => decideInQueue(context, request, "/api/admin/profiles", { verify: ["submitted_at_ms"], reject: ["reason", "submitted_at_ms"] });

/**
 * The profile review queue: the ID photo beside the drawn signature, then verify or reject with
 * a reason. Each decision names the version shown (`submitted_at_ms`), so a correction the
 * user sent meanwhile is refused instead of decided unseen.
 */
export default function AdminProfiles() {
  const { t } = useTranslation("admin");
  const data = useLoaderData<typeof loader>();
  const columns = [{ label: t("profiles.col_contact") }, { label: t("profiles.col_images") }];
  return (
    <QueuePage title={t("profiles.title")} note={t("profiles.note")} statuses={STATUSES} data={data} tableTestId="profiles-table" columns={columns}>
      {data.items.map((p) => (
        <ProfileRow key={p.user_id} p={p} />
      ))}
    </QueuePage>
  );
}

function ProfileRow({ p }: { p: ProfileItem }) {
  const { t } = useTranslation("admin");
  const { fetcher, busy } = useAction();
  const who = p.account || `#${p.user_id}`;
  return (
    <tr data-testid="profile-row" data-user-id={p.user_id} data-status={p.status} className={busy ? "row-busy" : undefined}>
      <SubmitterCells id={p.user_id} created_at={p.submitted_at_ms} user_id={p.user_id} account={p.account} />
      <td className="wrap-cell">
        <strong data-testid="profile-row-name">{p.name}</strong>
        <div className="mono" data-testid="profile-row-phone">{p.phone}</div>
        <div className="mono" data-testid="profile-row-email">{p.email}</div>
      </td>
      <td>
        <div style={{ display: "flex", gap: 8, alignItems: "flex-start" }}>
          <span data-testid="profile-row-photo">
            <Screenshot src={p.id_photo} alt={t("profiles.photo_alt", { account: who })} />
          </span>
          <span data-testid="profile-row-signature">
            <Screenshot src={p.signature} alt={t("profiles.signature_alt", { account: who })} />
          </span>
        </div>
      </td>
      <td className="actions-cell">
        {p.status === "submitted" ? (
          <div className="decide">
            <VerifyButton p={p} fetcher={fetcher} busy={busy} />
            <InlineAction
              fetcher={fetcher}
              busy={busy}
              hidden={{ intent: "reject", id: p.user_id, submitted_at_ms: p.submitted_at_ms }}
              name="reason"
              placeholder={t("reject_reason")}
              button={t("reject")}
              inputTestId="reason-input"
              buttonTestId="reject-profile"
            />
          </div>
        ) : (
          <Decided status={p.status} decided_at={p.decided_at_ms}>
            {p.reject_reason ? <div className="decided-reason">{p.reject_reason}</div> : null}
          </Decided>
        )}
      </td>
    </tr>
  );
}

/** Verifying makes the profile read-only for the user, so the operator confirms first. */
function VerifyButton({ p, fetcher, busy }: { p: ProfileItem; fetcher: ReturnType<typeof useAction>["fetcher"]; busy: boolean }) {
  const { t } = useTranslation("admin");
  const ui = useUi();
  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    if (!(await ui.confirm(t("profiles.confirm_verify", { account: p.account || `#${p.user_id}`, name: p.name })))) return;
    fetcher.submit(data, { method: "post" });
  }
  return (
    <form className="inline-action" onSubmit={onSubmit}>
      <input type="hidden" name="intent" value="verify" />
      <input type="hidden" name="id" value={p.user_id} />
      <input type="hidden" name="submitted_at_ms" value={p.submitted_at_ms} />
      <button type="submit" className="btn btn-sm btn-primary" disabled={busy} data-testid="verify-profile">
        {t("profiles.verify")}
      </button>
    </form>
  );
}
