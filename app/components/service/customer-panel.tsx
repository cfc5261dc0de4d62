import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { LANGUAGES, localeFromLang } from "../../../locales/languages";
import { formatDate } from "../../lib/format";
import type { ContextKind } from "../../lib/service";
import { PromotionPanel } from "../admin/promotion-panel";

export type Customer = {
  id: number;
  account: string;
  lang: string | null;
  created_at_ms: number;
  profile_status: "none" | "submitted" | "verified" | "rejected";
  balances: { available: string; locked_trade: string; locked_pool: string; locked_withdrawal: string };
};
export type ContextSummary = { kind: ContextKind; ref_id: number; summary: string };

const BALANCES = ["available", "locked_trade", "locked_pool", "locked_withdrawal"] as const;

/** The language's own name for a stored `lang` (a code, key or tag); the raw value if unknown. */
export function languageName(lang: string | null): string {
  const key = lang ? localeFromLang(lang) : null;
  return LANGUAGES.find((l) => l.key === key)?.name ?? lang ?? "";
}

/** Beside the chat: who is writing (profile and balances; a guest is only a guest) and what it is about. */
export function CustomerPanel({ user, contexts, locale }: { user: Customer | null; contexts: ContextSummary[]; locale: string }) {
  const { t } = useTranslation("service");
  return (
    <>
      <section data-testid="sv-customer">
        <h3>{t("inbox.customer")}</h3>
        {user ? (
          <>
            <dl className="sv-facts">
              <dt>{t("inbox.account")}</dt>
              <dd>
                <Link to={`/admin/users/${user.id}`}>{user.account}</Link>
              </dd>
              <dt>{t("inbox.language")}</dt>
              <dd>{languageName(user.lang)}</dd>
              <dt>{t("inbox.since")}</dt>
              <dd>{formatDate(user.created_at_ms, locale)}</dd>
              <dt>{t("inbox.profile")}</dt>
              <dd>{t(`inbox.profile_status.${user.profile_status}`)}</dd>
            </dl>
            <h3 className="sv-balances-title">{t("inbox.balances")}</h3>
            <dl className="sv-facts" data-testid="sv-balances">
              {BALANCES.map((b) => (
                <div key={b} style={{ display: "contents" }}>
                  <dt>{t(`inbox.balance.${b}`)}</dt>
                  <dd>{user.balances[b]} USDT</dd>
                </div>
              ))}
            </dl>
          </>
        ) : (
          <p className="muted">{t("inbox.guest_info")}</p>
        )}
      </section>
      <section data-testid="sv-context-summaries">
        <h3>{t("inbox.contexts")}</h3>
        {contexts.length === 0 ? (
          <p className="muted">{t("inbox.no_contexts")}</p>
        ) : (
          <ul>
            {contexts.map((c) => (
              <li key={`${c.kind}:${c.ref_id}`}>
                <strong>{t(`about.${c.kind}`, { id: c.ref_id })}</strong>
                <br />
                {c.summary}
                {/* A signed-in customer's promotion: their qualifying deposits, grant or decline, right here. */}
                {c.kind === "promotion" && user ? <PromotionPanel userId={user.id} promotionId={c.ref_id} /> : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
