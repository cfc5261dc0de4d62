import { describe, expect, it } from "vitest";
import { settledNotices } from "../../../worker/domain/notifications/settled";
import { noticeLink, noticeText } from "../../../worker/domain/notifications/text";
import { translate } from "../../../worker/i18n";

const M = 1_000_000;

describe("orders_settled notices", () => {
  it("one per owner: count, signed net (payouts minus stakes) and the lowest order id", () => {
    const notices = settledNotices([
      { id: 12, user_id: 1, stake_micro: 10 * M, payout_micro: 18.5 * M },
      { id: 9, user_id: 1, stake_micro: 10 * M, payout_micro: 0 },
      { id: 10, user_id: 2, stake_micro: 5 * M, payout_micro: 5 * M },
      { id: 11, user_id: 1, stake_micro: 20 * M, payout_micro: 0 },
    ]);
    expect(notices).toEqual([
      { user_id: 1, params: { count: 3, net_micro: String(-21.5 * M), order_id: 9 }, dedupe_key: "orders:9:settled" },
      { user_id: 2, params: { count: 1, net_micro: "0", order_id: 10 }, dedupe_key: "orders:10:settled" },
    ]);
    expect(settledNotices([])).toEqual([]);
  });

  it("reads the net with its sign, in the reader's language and plural", () => {
    const t = (lng: "en" | "de") => (key: string, vars?: Record<string, string | number>) => translate(lng, `notifications.${key}`, vars);
    const n = { kind: "orders_settled" as const, params: { count: 3, net_micro: String(-21.5 * M), order_id: 9 } };
    expect(noticeText(n, "en", t("en"))).toEqual({ title: "Orders settled", body: "3 orders settled. Net result: -21.50 USDT.", url: "/pages/money/order?id=9" });
    expect(noticeText({ ...n, params: { ...n.params, count: 1, net_micro: "1234560000" } }, "de", t("de")).body).toBe("1 Order abgerechnet. Ergebnis netto: +1.234,56 USDT.");
  });

  it("every kind opens its own page", () => {
    expect(noticeLink({ kind: "limit_reached", params: {} })).toBe("/pages/me/sub/limits");
    expect(noticeLink({ kind: "new_sign_in", params: {} })).toBe("/pages/me/sub/devices");
    expect(noticeLink({ kind: "operator_message", params: { conversation_id: 3 } })).toBe("/pages/me/sub/service");
    const t = (key: string, vars?: Record<string, string | number>) => translate("en", `notifications.${key}`, vars);
    const limit = noticeText({ kind: "limit_reached", params: { limit: "daily_loss", resets_at_ms: Date.UTC(2026, 10, 24, 0, 0) } }, "en", t, "UTC");
    expect(limit.body).toBe("Your daily loss limit is reached. It resets Nov 24, 2026, 12:00 AM UTC.");
  });
});
