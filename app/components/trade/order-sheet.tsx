import { useGuardedFetcher } from "../../lib/tap-guard";
import { useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { formatAmount, formatBp, formatUsdt, formatUsdtExact, MICRO_PER_USDT, parseAmount } from "../../../worker/domain/money/units";
import { cleanAmountInput } from "../../lib/money";
import { useQuotes, withLive } from "../../lib/quotes";
import { networkFailureText, type PageEnvelope } from "../../lib/use-envelope";
import { NETWORK_ERROR_TOAST_MS } from "../../lib/client-defaults";
import { announceChange } from "../../lib/user-channel-state";
import { Modal, useUi } from "../ui";
import { formatClock, formatCountdown } from "../../lib/trade-format";
import { previewOrder } from "../../lib/order-preview";
import { ChangePill, LivePrice } from "./quote-block";
import type { Direction, Order, Product } from "../../lib/trade-types";
import { useNow } from "../../lib/use-now";
import { useOnceEach } from "../../lib/use-once-each";

export type PlacedOrder = { id: number; server_time: number; order: Order };
type OrderAnswer = PageEnvelope<PlacedOrder | { error?: string; price?: string; min?: string; max?: string }>;

/** A new idempotency key: one per opening of the sheet, so a double tap places one order. */
function newClientOrderId(): string {
  if (typeof crypto !== "undefined" && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Quick amounts offered under the field, within the duration's limits. */
function quickAmounts(min_micro: number, max_micro: number): number[] {
  const picks = [10, 50, 100, 500, 1000].map((u) => u * MICRO_PER_USDT).filter((m) => m >= min_micro && m <= max_micro);
  return picks.length ? picks.slice(0, 4) : [min_micro];
}

/**
 * The order confirmation (docs/product.md, order confirmation): amount, balance, delivery time with its profit
 * rate, fee, expected income, guarantee, countdown and expiry, the rule sentence and the
 * break-even win rate, then Buy up / Buy down. It posts to the page's own action (intent
 * "order") with the price shown as `quote_price`; a price that moved too far is refused by
 * the server and the sheet shows the new price.
 */
export function OrderSheet({
  product,
  direction,
  locale,
  balance_micro,
  onClose,
  onPlaced,
}: {
  product: Product;
  direction: Direction;
  locale: string;
  balance_micro: number;
  onClose: () => void;
  onPlaced: (placed: PlacedOrder) => void;
}) {
  const { t } = useTranslation("trade");
  const { t: tc } = useTranslation();
  const { t: te } = useTranslation("errors");
  const ui = useUi();
  const fetcher = useGuardedFetcher<OrderAnswer>();
  const titleId = useId();
  const amountId = useId();
  const [clientOrderId] = useState(newClientOrderId);
  const [amount, setAmount] = useState("");
  const [seconds, setSeconds] = useState(product.durations[0]?.seconds ?? 0);
  const [notice, setNotice] = useState<string | null>(null);
  const [moved, setMoved] = useState<{ price: string; liveTs: number | null } | null>(null);
  const [sentDirection, setSentDirection] = useState<Direction | null>(null);
  /** The server refused the sheet's terms: the rates and fee below are the new ones, marked until the next order. */
  const [termsChanged, setTermsChanged] = useState(false);
  const live = useQuotes([product.symbol])[product.symbol];
  const quote = withLive(product, live);
  // After "price moved", show the server's price until the next live tick arrives.
  const shownPrice = moved && (live?.ts ?? null) === moved.liveTs ? moved.price : quote.price;
  const now = useNow(1000);
  const input = useRef<HTMLInputElement>(null);
  const busy = fetcher.state !== "idle";
  const sending = useRef(false);
  const placed = useRef(onPlaced);
  placed.current = onPlaced;

  const duration = product.durations.find((d) => d.seconds === seconds) ?? product.durations[0];
  const parsed = amount === "" ? null : parseAmount(amount);
  const stake = parsed?.status === "ok" ? parsed.amount_micro : null;
  const preview = stake !== null && duration ? previewOrder(stake, product.fee_rate_bp, duration.profit_rate_bp) : null;

  let problem: string | null = null;
  if (parsed && parsed.status !== "ok") problem = parsed.status === "too_many_decimals" ? te("amount_decimals") : te("amount_invalid");
  else if (stake !== null && duration && (stake < duration.min_amount_micro || stake > duration.max_amount_micro)) {
    problem = t("sheet.range", { min: formatUsdt(duration.min_amount_micro, locale), max: formatUsdt(duration.max_amount_micro, locale) });
  } else if (preview && preview.cost_micro > balance_micro) problem = t("sheet.insufficient", { total: formatUsdtExact(preview.cost_micro, locale) });

  // The answer: success closes; a refusal is explained inside the sheet.
  useOnceEach(fetcher.state === "idle" ? fetcher.data : undefined, (answer) => {
    sending.current = false;
    if (answer.timeout) return ui.toast(networkFailureText(answer, tc));
    if (answer.network) return ui.toast(networkFailureText(answer, tc), NETWORK_ERROR_TOAST_MS);
    if (answer.status === 401) return ui.sessionExpired();
    if (answer.code === 1) {
      ui.toast(answer.msg);
      announceChange("trade");
      placed.current(answer.data as PlacedOrder);
      return;
    }
    const data = (answer.data ?? {}) as { error?: string; price?: string };
    if (data.error === "price_moved" && data.price) setMoved({ price: data.price, liveTs: live?.ts ?? null });
    if (data.error === "terms_changed") setTermsChanged(true);
    setNotice(answer.msg);
  });

  function submit(dir: Direction) {
    if (busy || sending.current) return;
    if (amount === "" || !duration) {
      ui.toast(tc("incomplete"));
      input.current?.focus();
      return;
    }
    if (problem || stake === null) return;
    if (!shownPrice) {
      setNotice(te("no_price"));
      return;
    }
    sending.current = true;
    setNotice(null);
    setSentDirection(dir);
    fetcher.submit(
      // The terms this sheet shows: if another operator opened new ones meanwhile, the order is
      // refused, the page reads the market again (the action revalidates) and shows them.
      { intent: "order", product_id: String(product.id), direction: dir, amount, seconds: String(duration.seconds), quote_price: shownPrice, client_order_id: clientOrderId, terms_version: String(product.terms_version) },
      { method: "post" },
    );
  }

  const deliveryAt = now !== null && duration ? now + duration.seconds * 1000 : null;

  return (
    // A modal (ui.tsx): Tab stays in the sheet, Escape or a tap above it closes it, focus goes back to the button that opened it.
    <Modal className="t-sheet" aria-labelledby={titleId} data-testid="order-sheet" data-direction={direction} onClose={onClose} backdropCloses>
      <header className="t-sheet-head">
        <h2 id={titleId}>{t("sheet.title")}</h2>
        <button type="button" className="t-sheet-close" onClick={onClose} aria-label={t("sheet.close")}>
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
            <path d="M6 6l12 12M18 6L6 18" fill="none" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" />
          </svg>
        </button>
      </header>

      <div className="t-sheet-body">
        <div className="t-sheet-market">
          <div>
            <strong>{product.symbol}</strong>
            <span className="t-muted">{product.name}</span>
          </div>
          <div className="t-sheet-market-price">
            <LivePrice price={shownPrice} move={moved && live?.ts === moved.liveTs ? null : quote.move} locale={locale} testId="sheet-price" />
            <ChangePill change={quote.change_pct} locale={locale} />
          </div>
        </div>

        <div className="t-field">
          <div className="t-field-top">
            <label htmlFor={amountId} className="t-label">
              {t("sheet.amount")}
            </label>
            <span className="t-muted" data-testid="sheet-available">
              {t("sheet.available", { amount: formatUsdt(balance_micro, locale) })}
            </span>
          </div>
          <div className={problem ? "t-amount t-amount-bad" : "t-amount"}>
            <input
              ref={input}
              data-autofocus
              id={amountId}
              name="amount"
              className="t-amount-input"
              type="text"
              inputMode="decimal"
              autoComplete="off"
              placeholder={duration ? t("sheet.amount_placeholder", { min: formatUsdt(duration.min_amount_micro, locale), max: formatUsdt(duration.max_amount_micro, locale) }) : ""}
              value={amount}
              data-testid="sheet-amount"
              aria-invalid={problem ? true : undefined}
              aria-describedby={`${amountId}-problem`}
              onChange={(e) => {
                const next = cleanAmountInput(e.target.value);
                if (next === "decimals") ui.toast(te("amount_decimals"));
                else if (next !== null) {
                  setAmount(next);
                  setNotice(null);
                }
              }}
            />
            <span className="t-amount-unit">USDT</span>
          </div>
          {duration ? (
            <div className="t-quick" aria-label={t("sheet.quick")}>
              {quickAmounts(duration.min_amount_micro, duration.max_amount_micro).map((m) => (
                <button key={m} type="button" className={stake === m ? "t-quick-item t-quick-on" : "t-quick-item"} onClick={() => setAmount(formatAmount(m, 0))}>
                  {formatUsdt(m, locale, { digits: 0 })}
                </button>
              ))}
            </div>
          ) : null}
          <p id={`${amountId}-problem`} className="t-problem" role={problem ? "alert" : undefined}>
            {problem ?? ""}
          </p>
        </div>

        <fieldset className="t-durations">
          <legend className="t-label">{t("sheet.duration")}</legend>
          <div className="t-duration-grid">
            {product.durations.map((d) => (
              <button
                key={d.seconds}
                type="button"
                className={d.seconds === duration?.seconds ? "t-duration t-duration-on" : "t-duration"}
                aria-pressed={d.seconds === duration?.seconds}
                data-testid="duration-option"
                data-seconds={d.seconds}
                onClick={() => {
                  setSeconds(d.seconds);
                  setNotice(null);
                }}
              >
                <strong>{t("seconds", { count: d.seconds })}</strong>
                <span>{t("sheet.profit_rate", { rate: formatBp(d.profit_rate_bp, locale) })}</span>
              </button>
            ))}
          </div>
        </fieldset>

        {termsChanged ? (
          <p className="t-terms-changed" role="status" data-testid="sheet-terms-changed" data-terms-version={product.terms_version}>
            {t("sheet.terms_updated")}
          </p>
        ) : null}
        <dl className="t-summary">
          <div>
            <dt>{t("sheet.fee", { rate: formatBp(product.fee_rate_bp, locale) })}</dt>
            <dd data-testid="sheet-fee">{preview ? formatUsdtExact(preview.fee_micro, locale) : "--"} USDT</dd>
          </div>
          <div>
            <dt>{t("sheet.income")}</dt>
            <dd data-testid="sheet-income" className="t-rise">
              {preview ? `+${formatUsdtExact(preview.income_micro, locale)}` : "--"} USDT
            </dd>
          </div>
          <div>
            <dt>
              {t("sheet.guarantee")}
              <small>{t("sheet.guarantee_note")}</small>
            </dt>
            <dd data-testid="sheet-guarantee">{preview ? formatUsdt(preview.guarantee_micro, locale) : "--"} USDT</dd>
          </div>
          <div className="t-summary-total">
            <dt>{t("sheet.cost")}</dt>
            <dd data-testid="sheet-cost">{preview ? formatUsdtExact(preview.cost_micro, locale) : "--"} USDT</dd>
          </div>
          <div>
            <dt>{t("sheet.countdown")}</dt>
            <dd data-testid="sheet-countdown">{duration ? formatCountdown(duration.seconds * 1000) : "--"}</dd>
          </div>
          <div>
            <dt>{t("sheet.expiry")}</dt>
            <dd data-testid="sheet-expiry">{deliveryAt !== null ? formatClock(deliveryAt, locale) : "--"}</dd>
          </div>
        </dl>

        <p className="t-break-even" data-testid="sheet-break-even" data-rate={preview ? preview.break_even_bp / 100 : ""}>
          {preview ? t("sheet.break_even", { rate: formatBp(preview.break_even_bp, locale) }) : t("sheet.break_even_hint")}
        </p>
        <p className="t-rule" data-testid="sheet-rule">
          {t("rule")} {t("sheet.entry_rule")}
        </p>
      </div>

      <footer className="t-sheet-actions">
        {notice ? (
          <p className="t-notice t-sheet-notice" role="alert" data-testid="sheet-notice">
            {notice}
          </p>
        ) : null}
        <button type="button" className="t-btn t-btn-up" data-testid="sheet-confirm-up" disabled={busy || Boolean(problem)} aria-busy={busy && sentDirection === "up"} onClick={() => submit("up")}>
          <Arrow up />
          {busy && sentDirection === "up" ? tc("loading") : t("buy_up")}
        </button>
        <button type="button" className="t-btn t-btn-down" data-testid="sheet-confirm-down" disabled={busy || Boolean(problem)} aria-busy={busy && sentDirection === "down"} onClick={() => submit("down")}>
          <Arrow />
          {busy && sentDirection === "down" ? tc("loading") : t("buy_down")}
        </button>
      </footer>
    </Modal>
  );
}

export function Arrow({ up = false }: { up?: boolean }) {
  return (
    <svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" className="t-arrow">
      <path d={up ? "M12 19V5M6 11l6-6 6 6" : "M12 5v14M6 13l6 6 6-6"} fill="none" stroke="currentColor" strokeWidth="2.4" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

/** Buy up / Buy down under a chart: they open the confirmation sheet. */
export function BuyButtons({ onBuy, disabled = false }: { onBuy: (d: Direction) => void; disabled?: boolean }) {
  const { t } = useTranslation("trade");
  return (
    <div className="t-buy">
      <button type="button" className="t-btn t-btn-up" data-testid="buy-up" disabled={disabled} onClick={() => onBuy("up")}>
        <Arrow up />
        {t("buy_up")}
      </button>
      <button type="button" className="t-btn t-btn-down" data-testid="buy-down" disabled={disabled} onClick={() => onBuy("down")}>
        <Arrow />
        {t("buy_down")}
      </button>
    </div>
  );
}

