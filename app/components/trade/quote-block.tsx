import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import type { LiveQuote } from "../../lib/quotes";
import { changeSign, formatVolume } from "../../lib/trade-format";
import { formatChangePercent, formatPrice } from "../../../worker/domain/money/units";

/** Principle 5: simulated data says so, in one line. */
export function SimulatedLabel() {
  const { t } = useTranslation("trade");
  return (
    <p className="t-sim" data-testid="simulated-label" role="note">
      <span className="t-sim-badge">{t("simulated")}</span>
      <span>{t("simulated_note")}</span>
    </p>
  );
}

/** A rise/fall figure as a green or red pill ("+1.23%", "+1,23 %"). */
export function ChangePill({ change, locale, solid = false }: { change: string | null; locale: string; solid?: boolean }) {
  const sign = changeSign(change);
  const tone = sign > 0 ? "t-rise" : sign < 0 ? "t-fall" : "t-flat";
  return (
    <span className={`t-change ${tone}${solid ? " t-change-solid" : ""}`} data-testid="change" data-sign={sign}>
      {formatChangePercent(change, locale)}
    </span>
  );
}

/** How long a price that moved stays tinted green or red. */
const FLASH_MS = 900;

/**
 * The tint of a price that just moved: set when the price changes, cleared by a timer. Not a CSS
 * animation: with a tick a second, a fading background keeps the page drawing every frame for good,
 * about 85 % of an idle trade page's CPU (decision 160); a class set and cleared draws twice a tick.
 */
function useFlash(price: string | null, move: LiveQuote["move"]): "up" | "down" | null {
  const [flash, setFlash] = useState<"up" | "down" | null>(null);
  useEffect(() => {
    if (move !== "up" && move !== "down") return;
    setFlash(move);
    const timer = setTimeout(() => setFlash(null), FLASH_MS);
    return () => clearTimeout(timer);
  }, [price, move]);
  return flash;
}

/** A price that is tinted green or red for a moment when it moves. */
export function LivePrice({ price, move, locale, className = "", testId }: { price: string | null; move: LiveQuote["move"]; locale: string; className?: string; testId?: string }) {
  const flash = useFlash(price, move);
  return (
    <span className={`t-price ${flash ? `t-flash-${flash}` : ""} ${className}`} data-testid={testId} data-price={price ?? ""}>
      {formatPrice(price, locale)}
    </span>
  );
}

type Quote = { symbol: string; name: string; price: string | null; change_pct: string | null; open: string | null; high: string | null; low: string | null; volume: string | null; move: LiveQuote["move"] };

/** Latest price, rise/fall, open, high, low and 24h volume (docs/product.md, market quote). */
export function QuoteBlock({ quote, locale, compact = false }: { quote: Quote; locale: string; compact?: boolean }) {
  const { t } = useTranslation("trade");
  const sign = changeSign(quote.change_pct);
  return (
    <section className={compact ? "t-quote t-quote-compact" : "t-quote card"} aria-label={t("quote_label", { symbol: quote.symbol })}>
      <div className="t-quote-main">
        <div>
          <p className="t-quote-caption">{t("latest_price")}</p>
          <LivePrice price={quote.price} move={quote.move} locale={locale} className={`t-quote-price ${sign > 0 ? "t-rise" : sign < 0 ? "t-fall" : ""}`} testId="quote-price" />
          <p className="t-quote-sub">
            <ChangePill change={quote.change_pct} locale={locale} />
            <span className="t-quote-change-label">{t("change_24h")}</span>
          </p>
        </div>
        <dl className="t-stats">
          <div>
            <dt>{t("open")}</dt>
            <dd data-testid="quote-open">{formatPrice(quote.open, locale)}</dd>
          </div>
          <div>
            <dt>{t("high")}</dt>
            <dd data-testid="quote-high">{formatPrice(quote.high, locale)}</dd>
          </div>
          <div>
            <dt>{t("low")}</dt>
            <dd data-testid="quote-low">{formatPrice(quote.low, locale)}</dd>
          </div>
          <div>
            <dt>{t("volume")}</dt>
            <dd data-testid="quote-volume">{formatVolume(quote.volume, locale)}</dd>
          </div>
        </dl>
      </div>
    </section>
  );
}
