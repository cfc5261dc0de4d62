import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { useFetcher, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { AppLink, Screen } from "../../components/nav";
import { useCopy, useUi } from "../../components/ui";
import { formatDate } from "../../lib/format";
import { api } from "../../lib/api.server";
import { useRootData } from "../../root";
import type { ProfileView } from "./profile";
import { useServiceUnread } from "../../lib/service-unread";
import { useEnvelope, type PageEnvelope } from "../../lib/use-envelope";
import { NoticeBell } from "../../components/notifications/bell";
import notificationStyles from "../../styles/notifications.css";
export { clientAction } from "../../lib/client-action";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: notificationStyles }];

/** The profile's review status for its menu line; without an answer the line shows no status. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const res = await api<ProfileView>(context, request, "/api/user/cxinfos");
  return { profile_status: res.code === 1 ? res.data.status : null };
}

/** An account that came in without a code (a wallet's first sign-in) names its inviter, once. */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  return api(context, request, "/api/user/set_inviter", { invite_code: String(form.get("invite_code") ?? "") });
}

/** Accounts (tab 3): who you are, your invitation code, and the way to every setting. */
export default function Accounts() {
  const { t } = useTranslation("me");
  const { t: tw } = useTranslation("wallet");
  const { t: tp } = useTranslation("promotions");
  const root = useRootData();
  const user = root?.user;
  const copy = useCopy();
  const { profile_status } = useLoaderData<typeof loader>();
  if (!user) return null;
  return (
    <Screen title={t("title")} tabs right={<NoticeBell />}>
      <section className="profile card">
        <div className="avatar" aria-hidden="true">
          {user.account.slice(0, 1).toUpperCase()}
        </div>
        <div>
          <p className="profile-name" data-testid="account-name">
            {user.account}
          </p>
          <p className="muted">{t("member_since", { date: formatDate(user.created_at_ms, root.locale) })}</p>
        </div>
      </section>
      <section className="card">
        <div className="row">
          <span>{t("my_invite_code")}</span>
          <button type="button" className="link" onClick={() => copy(user.invite_code)} data-testid="my-invite-code">
            {user.invite_code}
          </button>
        </div>
        {user.invited_with_code === "" ? <InviterForm /> : null}
      </section>
      <nav className="menu card" aria-label={t("menu_money")}>
        <MenuItem to="/pages/me/sub/stored" label={t("menu_recharge")} />
        <MenuItem to="/pages/me/sub/stored2" label={t("menu_bank_recharge")} />
        <MenuItem to="/pages/me/sub/draw-money" label={t("menu_withdraw")} />
        <MenuItem to="/pages/me/sub/draw-record" label={t("menu_withdraw_records")} />
        <MenuItem to="/pages/me/sub/recharge-record" label={t("menu_recharge_records")} />
        <MenuItem to="/pages/me/sub/wallet" label={t("menu_wallets")} />
        <MenuItem to="/pages/me/sub/kabaw" label={t("menu_bank_cards")} />
        <MenuItem to="/pages/me/sub/record" label={t("menu_records")} />
      </nav>
      <nav className="menu card" aria-label={tw("earn.menu")}>
        <MenuItem to="/pages/me/sub/loan" label={tw("earn.loan.title")} />
        <MenuItem to="/pages/me/sub/loan-records" label={tw("earn.records.title")} />
        <MenuItem to="/pages/me/sub/machine" label={tw("earn.miner.title")} />
        <MenuItem to="/pages/me/sub/activity" label={tp("activity.title")} testId="menu-activity" />
      </nav>
      <nav className="menu card" aria-label={t("title")}>
        <MenuItem to="/pages/me/sub/improve-info" label={t("menu_profile")} detail={profile_status ? t(`profile.status_${profile_status}`) : undefined} testId="menu-profile" />
        <MenuItem to="/pages/me/sub/setting" label={t("settings")} />
        <MenuItem to="/pages/me/sub/modify-pwd" label={t(user.has_password ? "modify_pwd" : "pwd_set_title")} />
        <MenuItem to="/pages/me/sub/about" label={t("about")} />
        <ServiceMenuItem />
      </nav>
    </Screen>
  );
}

function InviterForm() {
  const { t } = useTranslation("me");
  const ui = useUi();
  const fetcher = useFetcher<PageEnvelope>();
  useEnvelope(fetcher.data, (_data, msg) => ui.toast(msg));
  return (
    <fetcher.Form method="post" className="row inviter-form" data-testid="inviter-form">
      <label htmlFor="invite_code">{t("invited_by")}</label>
      <input id="invite_code" name="invite_code" maxLength={16} autoCapitalize="characters" placeholder={t("inviter_placeholder")} required />
      <button type="submit" className="btn btn-primary" disabled={fetcher.state !== "idle"}>
        {t("inviter_save")}
      </button>
    </fetcher.Form>
  );
}

/** The customer-service chat, with the unread count the me tab's badge shows. */
function ServiceMenuItem() {
  const { t } = useTranslation("service");
  const { unread } = useServiceUnread();
  return <MenuItem to="/pages/me/sub/service" label={t("title")} detail={unread ? t("inbox.unread", { count: unread }) : undefined} testId="menu-service" />;
}

export function MenuItem({ to, label, detail, testId }: { to: string; label: string; detail?: string; testId?: string }) {
  return (
    <AppLink to={to} className="menu-item" data-testid={testId}>
      <span>{label}</span>
      <span className="menu-detail">
        {detail}
        <span aria-hidden="true"> ›</span>
      </span>
    </AppLink>
  );
}
