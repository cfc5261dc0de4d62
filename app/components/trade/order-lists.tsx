import { useBackgroundRevalidate } from "../../lib/revalidate";
import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { formatPrice, formatSigned, formatUsdt } from "../../../worker/domain/money/units";
import { useQuotes } from "../../lib/quotes";
import { AppLink, Empty } from "../nav";
import { DirectionTag, Signed, StatusPill, useLocalTime } from "./bits";
import { formatCountdown, standing } from "../../lib/trade-format";
import type { Order } from "../../lib/trade-types";
import { useNow, useServerOffset } from "../../lib/use-now";

/** How long after delivery the list asks again, then backing off while an order stays open. */
const FIRST_REFETCH_MS = 1500;
/** An order's entry is the first tick after acceptance (decision 123): asked for again this long after placing it. */
const ENTRY_REFETCH_MS = 1500;
const RETRY_MS = [5_000, 10_000, 20_000, 40_000, 60_000];

/**
 * Open orders with a live countdown to delivery on the server's clock. The user channel
 * reloads the page when one settles; as a backstop the list reloads itself 1.5 s after a
 * delivery time passes (and then less and less often while the order still shows open). An
 * order still waiting for its entry (the next tick) is asked for again 1.5 s after it was placed.
 */
export function PositionList({ items, server_time, locale }: { items: Order[]; server_time: number; locale: string }) {
  const { t } = useTranslation("trade");
  const now = useNow(500);
  const offset = useServerOffset(server_time);
  const reload = useBackgroundRevalidate();
  const live = useQuotes(items.map((o) => o.symbol));
  const time = useLocalTime(locale);
  const attempts = useRef(new Map<number, { count: number; at: number }>());
  const serverNow = now === null ? server_time : now + offset;

  useEffect(() => {
    if (now === null) return;
    let due = false;
    for (const o of items) {
      const entryDue = o.entry_price === null && serverNow >= o.created_at + ENTRY_REFETCH_MS;
      if (!entryDue && serverNow < o.delivery_at + FIRST_REFETCH_MS) continue;
      const a = attempts.current.get(o.id);
      if (!a || now - a.at >= RETRY_MS[Math.min(a.count - 1, RETRY_MS.length - 1)]) {
        attempts.current.set(o.id, { count: (a?.count ?? 0) + 1, at: now });
        due = true;
      }
    }
    if (due) reload();
  }, [now, serverNow, items, reload]);

  if (items.length === 0) return <Empty />;
  return (
    <ul className="t-orders" data-testid="position-list">
      {items.map((o) => {
        const left = o.delivery_at - serverNow;
        const total = o.seconds * 1000;
        const progress = Math.min(1, Math.max(0, 1 - left / total));
        const price = live[o.symbol]?.price ?? null;
        const ahead = standing(o.direction, o.entry_price, price);
        return (
          <li key={o.id} data-testid="position-row" data-id={o.id}>
            <AppLink to={`/pages/money/order?id=${o.id}`} className="t-order card">
              <div className="t-order-head">
                <strong className="t-order-symbol">{o.symbol}</strong>
                <DirectionTag direction={o.direction} />
                <span className={left <= 0 ? "t-countdown t-countdown-done" : "t-countdown"} data-testid="countdown" data-delivery={o.delivery_at} aria-label={t("countdown")}>
                  {left <= 0 ? t("status.settling") : formatCountdown(left)}
                </span>
              </div>
              <div className="t-progress" aria-hidden="true">
                <span style={{ width: `${progress * 100}%` }} />
              </div>
              <dl className="t-order-facts">
                <div>
                  <dt>{t("amount")}</dt>
                  <dd>{formatUsdt(o.amount_micro, locale)} USDT</dd>
                </div>
                <div>
                  <dt>{t("entry_price")}</dt>
                  <dd data-testid="entry-price" data-pending={o.entry_price === null ? "true" : undefined}>
                    {o.entry_price === null ? t("entry_pending") : formatPrice(o.entry_price, locale)}
                  </dd>
                </div>
                <div>
                  <dt>{t("now")}</dt>
                  <dd className={ahead === 1 ? "t-rise" : ahead === -1 ? "t-fall" : ""} data-testid="current-price">
                    {price ? formatPrice(price, locale) : "--"}
                    {ahead !== null && price ? <small className="t-standing">{ahead === 1 ? t("ahead") : ahead === -1 ? t("behind") : t("level")}</small> : null}
                  </dd>
                </div>
                <div>
                  <dt>{t("delivery_time")}</dt>
                  <dd>{time.clock(o.delivery_at)}</dd>
                </div>
              </dl>
            </AppLink>
          </li>
        );
      })}
    </ul>
  );
}

/** Settled orders: result, profit (coloured), entry and settlement prices; tap for the proof. */
export function HistoryList({ items, locale }: { items: Order[]; locale: string }) {
  const { t } = useTranslation("trade");
  const time = useLocalTime(locale);
  if (items.length === 0) return <Empty />;
  return (
    <ul className="t-orders" data-testid="history-list">
      {items.map((o) => (
        <li key={o.id} data-testid="history-row" data-id={o.id} data-status={o.status}>
          <AppLink to={`/pages/money/order?id=${o.id}`} className="t-order card">
            <div className="t-order-head">
              <strong className="t-order-symbol">{o.symbol}</strong>
              <DirectionTag direction={o.direction} />
              <StatusPill status={o.status} testId="history-status" />
            </div>
            <div className="t-order-result">
              <span className="t-muted">{t("profit")}</span>
              <Signed micro={o.profit_micro} text={`${o.profit_micro === null ? "--" : formatSigned(o.profit_micro, locale)} USDT`} testId="history-profit" />
            </div>
            <dl className="t-order-facts">
              <div>
                <dt>{t("amount")}</dt>
                <dd>{formatUsdt(o.amount_micro, locale)} USDT</dd>
              </div>
              <div>
                <dt>{t("entry_price")}</dt>
                <dd>{o.entry_price === null ? "--" : formatPrice(o.entry_price, locale)}</dd>
              </div>
              <div>
                <dt>{t("settlement_price")}</dt>
                <dd data-testid="settlement-price">{o.settlement_price ? formatPrice(o.settlement_price, locale) : t("no_price")}</dd>
              </div>
              <div>
                <dt>{t("delivery_time")}</dt>
                <dd>{time.dateTime(o.delivery_at)}</dd>
              </div>
            </dl>
          </AppLink>
        </li>
      ))}
    </ul>
  );
}
