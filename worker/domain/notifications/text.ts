/**
 * A notification in words, for the centre's page and for a push message alike: the stored
 * params (ids, micro-unit strings) become the words' values in the reader's language, amounts
 * through the one money formatter. `t` reads the `notifications` namespace (react-i18next's on a
 * page, worker/i18n.ts in the Worker).
 */
import { formatSigned, formatUsdt } from "../money/units";
import type { NotificationKind } from "./kinds";

export type NoticeT = (key: string, vars?: Record<string, string | number>) => string;
export type StoredNotice = { kind: NotificationKind; params: Record<string, unknown> };

const num = (v: unknown) => (typeof v === "number" ? v : Number.parseInt(String(v ?? ""), 10)) || 0;
const str = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : "");

function values(n: StoredNotice, locale: string, t: NoticeT, time_zone?: string): Record<string, string | number> {
  const p = n.params;
  switch (n.kind) {
    case "deposit_credited":
    case "deposit_rejected":
    case "withdrawal_paid":
    case "withdrawal_rejected":
      return { amount: formatUsdt(num(p.amount_micro), locale) };
    case "orders_settled":
      return { count: num(p.count), net: formatSigned(num(p.net_micro), locale) };
    case "new_sign_in":
    case "password_reset":
      return { device: str(p.device), ip: str(p.ip) };
    case "limit_reached": {
      const when = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone: time_zone }).format(new Date(num(p.resets_at_ms)));
      return { limit: t(`limits.${str(p.limit)}`), resets_at: time_zone === "UTC" ? `${when} UTC` : when };
    }
    case "operator_message":
      return {};
  }
}

/** Where tapping the notice goes: the record, order or page it is about. */
export function noticeLink(n: StoredNotice): string {
  switch (n.kind) {
    case "deposit_credited":
    case "deposit_rejected":
      return "/pages/me/sub/recharge-record";
    case "withdrawal_paid":
    case "withdrawal_rejected":
      return "/pages/me/sub/draw-record";
    case "orders_settled":
      return `/pages/money/order?id=${num(n.params.order_id)}`;
    case "new_sign_in":
    case "password_reset":
      return "/pages/me/sub/devices";
    case "limit_reached":
      return "/pages/me/sub/limits";
    case "operator_message":
      return "/pages/me/sub/service";
  }
}

/** Title, body and link of a notice in `locale`. `time_zone` "UTC" for texts made in the Worker (it knows no user's zone). */
export function noticeText(n: StoredNotice, locale: string, t: NoticeT, time_zone?: string) {
  const vars = values(n, locale, t, time_zone);
  return { title: t(`kind.${n.kind}.title`, vars), body: t(`kind.${n.kind}.body`, vars), url: noticeLink(n) };
}
