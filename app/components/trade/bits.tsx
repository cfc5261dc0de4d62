import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { formatDateTime } from "../../lib/format";
import { Arrow } from "./order-sheet";
import type { Direction, OrderStatus } from "../../lib/trade-types";

/**
 * Times in the user's own zone. The server does not know it, so the server render (and the
 * hydrating render, which must match it) shows UTC and says so; after hydration, local time.
 */
let hydrated = false;

export function useLocalTime(locale: string) {
  const [local, setLocal] = useState(hydrated);
  useEffect(() => {
    hydrated = true;
    setLocal(true);
  }, []);
  const zone = local ? undefined : "UTC";
  const suffix = local ? "" : " UTC";
  return {
    clock: (ms: number) => new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", second: "2-digit", timeZone: zone }).format(new Date(ms)) + suffix,
    /** With milliseconds, for the tick audit: "14:32:05.123". */
    precise: (ms: number) => {
      const text = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZone: zone }).format(new Date(ms));
      return `${text}.${String(((ms % 1000) + 1000) % 1000).padStart(3, "0")}${suffix}`;
    },
    dateTime: (ms: number) => (local ? formatDateTime(ms, locale) : new Intl.DateTimeFormat(locale, { dateStyle: "short", timeStyle: "medium", timeZone: "UTC" }).format(new Date(ms)) + suffix),
  };
}

/** "Buy up" in green / "Buy down" in red, with an arrow. */
export function DirectionTag({ direction }: { direction: Direction }) {
  const { t } = useTranslation("trade");
  return (
    <span className={direction === "up" ? "t-dir t-dir-up" : "t-dir t-dir-down"} data-testid="direction" data-direction={direction}>
      <Arrow up={direction === "up"} />
      {direction === "up" ? t("buy_up") : t("buy_down")}
    </span>
  );
}

const TONE: Record<OrderStatus, string> = { open: "t-status-open", won: "t-status-won", lost: "t-status-lost", tie: "t-status-tie", void: "t-status-void" };

/** An order's state as a coloured pill; `settling` once an open order is past delivery. */
export function StatusPill({ status, settling = false, testId }: { status: OrderStatus; settling?: boolean; testId?: string }) {
  const { t } = useTranslation("trade");
  return (
    <span className={`t-status ${TONE[status]}`} data-testid={testId} data-status={status}>
      {status === "open" && settling ? t("status.settling") : t(`status.${status}`)}
    </span>
  );
}

/** A signed USDT amount coloured by its sign. */
export function Signed({ micro, text, testId }: { micro: number | null; text: string; testId?: string }) {
  const tone = micro === null || micro === 0 ? "t-flat" : micro > 0 ? "t-rise" : "t-fall";
  return (
    <span className={`t-signed ${tone}`} data-testid={testId}>
      {text}
    </span>
  );
}
