import type { LinksFunction, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { safeImage, safeLink } from "../../../worker/domain/content/links";
import { useLoaderData } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { AppLink, Screen } from "../../components/nav";
import { useCopy } from "../../components/ui";
import { apiOrLogin } from "../../lib/api.server";
import { formatUsdt } from "../../../worker/domain/money/units";
import type { Contacts, Slide } from "../../lib/types";
import { useRootData } from "../../root";
import moneyStyles from "../../styles/money.css";
export { shouldRevalidate } from "../../lib/revalidate";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: moneyStyles }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const res = await apiOrLogin<{ slides: Slide[]; contacts: Contacts }>(context, request, "/api/index/home");
  return res.data;
}

/** The wallet home (tab 0): balance summary, banners, quick entries, contacts. */
export default function Home() {
  const { t } = useTranslation("home");
  const { slides, contacts } = useLoaderData<typeof loader>();
  const root = useRootData();
  const user = root?.user;
  const copy = useCopy();
  const locale = root?.locale ?? "en";
  return (
    <Screen title={t("title")} tabs>
      <section className="balance-card" aria-label={t("total_assets")}>
        <p className="balance-hello">{user ? t("hello", { account: user.account }) : null}</p>
        <p className="balance-label">{t("total_assets")}</p>
        <p className="balance-total" data-testid="balance-total">
          {formatUsdt(user?.total_micro ?? 0, locale)}
        </p>
        <div className="balance-split">
          <div>
            <span className="balance-label">{t("available")}</span>
            <strong data-testid="balance-available">{formatUsdt(user?.balance_micro ?? 0, locale)}</strong>
          </div>
          <div>
            <span className="balance-label">{t("locked")}</span>
            <strong data-testid="balance-locked">{formatUsdt(user?.locked_micro ?? 0, locale)}</strong>
          </div>
        </div>
        <p className="balance-note">{t("balance_note")}</p>
      </section>

      {slides.length > 0 ? <Banners slides={slides} /> : null}

      <nav className="quick m-quick" aria-label="quick">
        <QuickEntry to="/pages/me/sub/stored" label={t("quick_recharge")} icon="M12 4v12M6 10l6 6 6-6M5 20h14" testId="quick-recharge" />
        <QuickEntry to="/pages/me/sub/draw-money" label={t("quick_withdraw")} icon="M12 20V8M6 14l6-6 6 6M5 4h14" testId="quick-withdraw" />
        <QuickEntry to="/pages/me/sub/record" label={t("quick_records")} icon="M7 4h10v16H7zM10 8h4M10 12h4M10 16h2" testId="quick-records" />
        <QuickEntry to="/pages/money/index" label={t("quick_trade")} icon="M4 18l5-6 4 3 7-9M15 6h5v5" testId="quick-trade" />
        <QuickEntry to="/pages/invest/index" label={t("quick_markets")} icon="M5 20V10M10 20V4M15 20v-8M20 20V7" testId="quick-markets" />
      </nav>

      {user ? (
        <section className="card invite">
          <h2 className="card-title">{t("invite_title")}</h2>
          <p className="muted">{t("invite_body")}</p>
          <button type="button" className="invite-code" onClick={() => copy(user.invite_code)}>
            {user.invite_code}
          </button>
        </section>
      ) : null}

      <section className="card" data-testid="contacts">
        <h2 className="card-title">{t("contact_title")}</h2>
        <dl className="rows">
          {contacts.wechat ? <Row label={t("contact_wechat")} value={contacts.wechat} onCopy={copy} /> : null}
          {contacts.mobile ? <Row label={t("contact_mobile")} value={contacts.mobile} onCopy={copy} /> : null}
          {contacts.email ? <Row label={t("contact_email")} value={contacts.email} onCopy={copy} /> : null}
          {contacts.hours ? <Row label={t("contact_hours")} value={contacts.hours} /> : null}
        </dl>
      </section>
    </Screen>
  );
}

function QuickEntry({ to, label, icon, testId }: { to: string; label: string; icon: string; testId: string }) {
  return (
    <AppLink to={to} className="quick-item" data-testid={testId}>
      <span className="quick-icon" aria-hidden="true">
        <svg viewBox="0 0 24 24" width="22" height="22">
          <path d={icon} fill="none" stroke="currentColor" strokeWidth="1.9" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
      </span>
      {label}
    </AppLink>
  );
}

function Row({ label, value, onCopy }: { label: string; value: string; onCopy?: (v: string) => void }) {
  return (
    <div className="row">
      <dt>{label}</dt>
      <dd>{onCopy ? <button type="button" className="link" onClick={() => onCopy(value)}>{value}</button> : value}</dd>
    </div>
  );
}

/** Banner carousel: swipeable, autoplay every 3000 ms, 130 px high (docs/product.md, rules and numbers). */
function Banners({ slides }: { slides: Slide[] }) {
  const [index, setIndex] = useState(0);
  const track = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (slides.length < 2) return;
    const id = setInterval(() => setIndex((i) => (i + 1) % slides.length), 3000);
    return () => clearInterval(id);
  }, [slides.length]);
  useEffect(() => {
    const el = track.current;
    if (el) el.scrollTo({ left: el.clientWidth * index, behavior: "smooth" });
  }, [index]);
  return (
    <div className="banners">
      <div
        className="banner-track"
        ref={track}
        onScroll={(e) => {
          const el = e.currentTarget;
          const i = Math.round(el.scrollLeft / Math.max(1, el.clientWidth));
          if (i !== index && Math.abs(el.scrollLeft - i * el.clientWidth) < 2) setIndex(i);
        }}
      >
        {slides.map((s) => {
          // Checked again here: a row written before the rules (or by hand) still never renders a script
          // link, nor an image the CSP would block (the title shows instead).
          const image = safeImage(s.image);
          const link = s.link ? safeLink(s.link) : null;
          const img = image ? <img src={image.href} alt={s.title} height={130} loading="lazy" /> : <span className="banner-title">{s.title}</span>;
          return (
            <div className="banner" key={s.id}>
              {link?.kind === "path" ? <AppLink to={link.href}>{img}</AppLink> : link?.kind === "https" ? <a href={link.href} rel="noopener noreferrer" target="_blank">{img}</a> : img}
            </div>
          );
        })}
      </div>
      <div className="banner-dots" aria-hidden="true">
        {slides.map((s, i) => (
          <span key={s.id} className={i === index ? "dot dot-active" : "dot"} />
        ))}
      </div>
    </div>
  );
}
