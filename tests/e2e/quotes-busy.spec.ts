/**
 * When the quote socket is refused (a busy hub answers 503) or drops, the market page says so in
 * the reader's language and gets back by itself (decision 088); it never shows a blank chart.
 */
import { expect, test } from "@playwright/test";
import { keepShot, open, register, words } from "./helpers";

for (const lng of ["en", "th"] as const) {
  test(`a refused quote socket shows 'busy, reconnecting' and recovers (${lng})`, async ({ page, context, baseURL }) => {
    const trade = words(lng, "trade");
    let refuse = true;
    let refused = 0;
    await page.routeWebSocket(/\/ws\/quotes\//, (ws) => {
      if (refuse) {
        refused += 1;
        return ws.close({ code: 1013, reason: "busy" });
      }
      ws.connectToServer();
    });
    await register(page);
    await context.addCookies([{ name: "lng", value: Buffer.from(JSON.stringify(lng)).toString("base64"), url: baseURL! }]);
    const products = (await (await page.request.post("/api/index/product_list", { data: {} })).json()).data as { id: number }[];
    await open(page, `/pages/invest/product?id=${products[0].id}`);
    const status = page.getByTestId("live-reconnecting");
    await expect(status).toHaveText(trade.live.reconnecting);
    // The loader's quote stays on screen, and the chart draws its candles.
    await expect(page.locator(".t-chart-card canvas").first()).toBeVisible();
    await keepShot(page, { path: `tests/.reports/quotes-busy-${lng}-390x844.png` });
    expect(refused).toBeGreaterThan(0);

    refuse = false;
    await expect(status).toHaveCount(0, { timeout: 20_000 });
  });
}
