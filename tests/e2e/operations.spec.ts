/**
 * The console's operations page (decision 130): the demo operator signs in and sees the live
 * signals (readiness with every check, each symbol's feed age, sockets and order groups, the
 * cron's runs) at the phone size and on a desktop, in English and in Thai, and the page refreshes
 * by itself. Screenshots go to tests/.reports/.
 */
import { expect, test, type Browser } from "@playwright/test";
import { keepShot, open, signInOperator, words } from "./helpers";

const SIZES = [
  { name: "phone", viewport: { width: 390, height: 844 }, isMobile: true },
  { name: "desktop", viewport: { width: 1440, height: 900 }, isMobile: false },
] as const;

async function consoleIn(browser: Browser, size: (typeof SIZES)[number], lng: string, baseURL: string) {
  const context = await browser.newContext({ viewport: size.viewport, isMobile: size.isMobile, hasTouch: size.isMobile, deviceScaleFactor: size.isMobile ? 2 : 1, locale: "en-US" });
  const page = await context.newPage();
  await signInOperator(page);
  await context.addCookies([{ name: "lng", value: Buffer.from(JSON.stringify(lng)).toString("base64"), url: baseURL }]);
  return { context, page };
}

for (const size of SIZES) {
  for (const lng of ["en", "th"]) {
    test(`operations page at ${size.name} size in ${lng}: readiness, feeds and cron runs, live`, async ({ browser, baseURL }) => {
      const ops = words(lng, "admin").operations;
      const { context, page } = await consoleIn(browser, size, lng, baseURL!);

      await open(page, "/admin/operations");
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(ops.title);
      // A fresh server is ready: its first cron run counts as pending until it is due.
      await expect(page.getByTestId("ops-readiness")).toContainText(ops.ready);
      const checks = page.getByTestId("ops-checks");
      for (const name of ["d1", "feed:BTC/USDT", "settlement_backlog", "log_oldest", "checkpoint_age", "cron"]) {
        await expect(checks.locator(`tr[data-check="${name}"]`)).toHaveAttribute("data-ok", "1");
      }
      // Each check reads in the page's language: its label, and why it reads as it does.
      await expect(checks.locator('tr[data-check="d1"]')).toContainText(ops.check.d1);
      await expect(checks.locator('tr[data-check="feed:BTC/USDT"]')).toContainText(`${ops.check.feed} BTC/USDT`);
      await expect(checks.locator('tr[data-check="cron"]')).toContainText(ops.check.cron);
      // Every reason shown is its label, never its code (read at once: the page refreshes itself).
      const reasons = await checks.locator("[data-reason]").evaluateAll((els) => els.map((el) => [el.getAttribute("data-reason")!, el.textContent!]));
      for (const [code, text] of reasons) expect(text.startsWith(ops.reason[code]), `${code}: ${text}`).toBe(true);
      const btc = page.getByTestId("ops-symbols").locator('tr[data-symbol="BTC/USDT"]');
      await expect(btc).toContainText(ops.reason.feed_simulation);
      await expect(btc.getByTestId("ops-feed-age")).not.toHaveText("—");
      await expect(btc.locator(".ops-meter")).toBeVisible();

      // Live: the stamp moves without a reload.
      const banner = page.getByTestId("ops-readiness");
      const first = await banner.textContent();
      await expect.poll(() => banner.textContent(), { timeout: 15_000 }).not.toBe(first);

      // The page fits a phone: nothing wider than the screen but the scrolling tables.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(1);
      await keepShot(page, { path: `tests/.reports/operations-${size.name}-${lng}.png`, fullPage: true });
      await context.close();
    });
  }
}

test("the cron's runs appear once the server's cron has run", async ({ browser, baseURL }) => {
  test.setTimeout(150_000);
  const { context, page } = await consoleIn(browser, SIZES[1], "en", baseURL!);
  await open(page, "/admin/operations");
  // The local server runs the cron at the start of every minute (scripts/workerd-serve.ts).
  await expect(page.getByTestId("ops-cron-runs").locator('tr[data-outcome="ok"]').first()).toBeVisible({ timeout: 125_000 });
  await expect(page.getByTestId("ops-cron-chart")).toBeVisible();
  await expect(page.getByTestId("ops-checks").locator('tr[data-check="cron"]')).toHaveAttribute("data-ok", "1");
  await keepShot(page, { path: "tests/.reports/operations-desktop-cron-en.png", fullPage: true });
  await context.close();
});

test("a guest is sent to the console's sign-in", async ({ page }) => {
  await page.goto("/admin/operations");
  await expect(page).toHaveURL(/\/admin\/login/);
  expect(words("en", "admin").operations.nav).toBeTruthy();
});

test("readiness answers 200 on the fresh server", async ({ request }) => {
  const r = await request.get("/api/health/ready");
  expect(r.status()).toBe(200);
  expect(((await r.json()) as { data: { ready: boolean } }).data.ready).toBe(true);
});
