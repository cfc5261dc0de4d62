import { describe, expect, it } from "vitest";
import { RESOURCES } from "../../../locales";
import { LANGUAGES } from "../../../locales/languages";
import { NOTIFICATION_KINDS } from "../../../worker/db/schema/notifications";
import { translate } from "../../../worker/i18n";

/** The params each kind's words are given by the page (notificationText), all filled. */
const VARS = { amount: "12.50", net: "+3.00", count: 3, device: "Chrome on Android", ip: "203.0.113.0/24", limit: "X", resets_at: "Y" };

describe("notification words", () => {
  for (const l of LANGUAGES) {
    for (const kind of NOTIFICATION_KINDS) {
      it(`${l.key}: ${kind} has a title and a body, filled and not English`, () => {
        const title = translate(l.key, `notifications.kind.${kind}.title`, VARS);
        const body = translate(l.key, `notifications.kind.${kind}.body`, VARS);
        expect(title).not.toMatch(/kind\.|\{\{/);
        expect(body).not.toMatch(/kind\.|\{\{/);
        if (l.key !== "en") {
          expect(title).not.toBe(translate("en", `notifications.kind.${kind}.title`, VARS));
          expect(body).not.toBe(translate("en", `notifications.kind.${kind}.body`, VARS));
        }
      });
    }
  }

  it("orders_settled takes the plural form of its count", () => {
    expect(translate("en", "notifications.kind.orders_settled.body", { ...VARS, count: 1 })).toBe("1 order settled. Net result: +3.00 USDT.");
    expect(translate("en", "notifications.kind.orders_settled.body", { ...VARS, count: 7 })).toBe("7 orders settled. Net result: +3.00 USDT.");
  });

  it("every limit named by limit_reached has its words in every language", () => {
    for (const l of LANGUAGES) expect(Object.keys(RESOURCES[l.key].notifications.limits as object).sort(), l.key).toEqual(Object.keys(RESOURCES.en.notifications.limits as object).sort());
  });
});
