import { useTranslation } from "react-i18next";

/**
 * Shown on every page of a demo deployment (production without a real price feed): prices are
 * simulated, balances are demo money, deposits and withdrawals are closed.
 */
export function DemoBanner() {
  const { t } = useTranslation();
  return (
    <p className="demo-banner" role="note" data-testid="demo-banner">
      <span className="demo-banner-badge">{t("demo")}</span>
      <span>{t("demo_note")}</span>
    </p>
  );
}
