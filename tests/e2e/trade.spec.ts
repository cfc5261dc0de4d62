import { expect, test } from "@playwright/test";
import { expectKeyboardHeld, login, open, register, words } from "./helpers";

/**
 * The trading journey with the demo account (10,000 USDT from its seeded deposit): open a
 * market, see the chart and price move, buy up with the shortest delivery, watch the
 * countdown, see it settle, open its tick audit, and find the statement lines.
 */
test("open a market, buy up 30 s, watch it settle, check the tick audit and the statement", async ({ page }) => {
  test.setTimeout(120_000);
  await open(page, "/pages/user/login");
  await login(page, "demo", "demo12345");
  await expect(page).toHaveURL(/\/$/);
  // The same account's home page in another tab: its balance follows the order placed here.
  const other = await page.context().newPage();
  await open(other, "/");
  const otherBalance = other.getByTestId("balance-available");
  const balanceBefore = await otherBalance.textContent();

  await open(page, "/pages/invest/index");
  await expect(page.getByTestId("simulated-label")).toBeVisible();
  const btc = page.locator('[data-testid="product-row"][data-symbol="BTC/USDT"]');
  await expect(btc).toBeVisible();
  await btc.click();
  await expect(page).toHaveURL(/\/pages\/invest\/product\?id=\d+/);
  await expect(page.getByTestId("chart").locator("canvas").first()).toBeVisible();

  // The price moves (one tick a second).
  const price = page.getByTestId("quote-price");
  const first = await price.textContent();
  await expect.poll(async () => price.textContent(), { timeout: 20_000 }).not.toBe(first);
  // A move tints the price for a moment: a class set and cleared, no animation, so a page left open
  // draws nothing between ticks (decision 160).
  await expect(price).toHaveClass(/t-flash-(up|down)/);
  expect(await price.evaluate((el) => el.getAnimations().length)).toBe(0);

  // The sheet is a modal: opened from the keyboard it takes the amount, Tab never leaves it for the
  // page behind, Escape closes it and the keyboard is back on Buy up; a tap above it closes it too.
  const buyUp = page.getByTestId("buy-up");
  const sheet = page.getByTestId("order-sheet");
  await buyUp.focus();
  await page.keyboard.press("Enter");
  await expect(sheet).toBeVisible();
  await expect(sheet.getByTestId("sheet-amount")).toBeFocused();
  await expectKeyboardHeld(page, '[data-testid="order-sheet"]', 20);
  await page.keyboard.press("Escape");
  await expect(sheet).toHaveCount(0);
  await expect(buyUp).toBeFocused();
  await buyUp.click();
  await expect(sheet).toBeVisible();
  await page.mouse.click(195, 30);
  await expect(sheet).toHaveCount(0);

  // Buy up, shortest delivery, 20 USDT; the sheet shows fee, income and break-even first.
  await buyUp.click();
  await expect(sheet).toBeVisible();
  const durations = sheet.getByTestId("duration-option");
  const seconds = await durations.evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-seconds"))));
  await sheet.locator(`[data-testid="duration-option"][data-seconds="${Math.min(...seconds)}"]`).click();
  await sheet.getByTestId("sheet-amount").fill("20");
  await expect(sheet.getByTestId("sheet-fee")).toContainText("0.20");
  await expect(sheet.getByTestId("sheet-income")).toContainText("17.00");
  await expect(sheet.getByTestId("sheet-break-even")).toContainText("54");
  await expect(sheet.getByTestId("sheet-rule")).toBeVisible();
  await sheet.getByTestId("sheet-confirm-up").click();

  // It lands in Positions with a live countdown.
  await expect(page).toHaveURL(/\/pages\/money\/index/);
  const position = page.getByTestId("position-row").first();
  await expect(position).toBeVisible();
  const orderId = await position.getAttribute("data-id");
  // The other tab heard it from this page over the user's channel, without reloading.
  await expect.poll(async () => otherBalance.textContent(), { timeout: 20_000 }).not.toBe(balanceBefore);
  await other.close();
  const countdown = position.getByTestId("countdown");
  const c1 = await countdown.textContent();
  await expect.poll(async () => countdown.textContent(), { timeout: 15_000 }).not.toBe(c1);

  // Settlement arrives at delivery: the position moves to History.
  await page.getByTestId("history-tab").click();
  const row = page.locator(`[data-testid="history-row"][data-id="${orderId}"]`);
  await expect(row).toBeVisible({ timeout: 60_000 });
  await expect(row).toHaveAttribute("data-status", /won|lost|tie|void/);

  // The detail shows the two ticks that decided it, among their neighbours.
  await open(page, `/pages/money/order?id=${orderId}`);
  await expect(page.getByTestId("order-status")).toHaveAttribute("data-status", /won|lost|tie/);
  await expect(page.locator('[data-testid="tick-row"][data-used="true"]')).toHaveCount(2);
  await expect(page.locator('[data-testid="tick-row"][data-role="entry"]')).toHaveAttribute("data-used", "true");
  await expect(page.locator('[data-testid="tick-row"][data-role="settlement"]')).toHaveAttribute("data-used", "true");
  expect(await page.locator('[data-testid="tick-row"][data-used="false"]').count()).toBeGreaterThan(0);
  await expect(page.getByTestId("order-rule")).toBeVisible();

  // The statement has the stake and fee lines for this order.
  await open(page, "/pages/me/sub/record");
  await expect(page.locator('[data-testid="record-row"][data-code="trade_stake"]').first()).toBeVisible();
  await expect(page.locator('[data-testid="record-row"][data-code="trade_fee"]').first()).toBeVisible();
});

test("in Japanese, the order sheet states its terms and says before buying that the balance is short", async ({ page }) => {
  await register(page);
  await open(page, "/pages/me/sub/setting");
  await page.getByRole("radio", { name: "日本語" }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", "ja");
  await open(page, "/pages/invest/index");
  await page.locator('[data-testid="product-row"][data-symbol="BTC/USDT"]').click();
  await page.getByTestId("buy-up").click();
  const sheet = page.getByTestId("order-sheet");
  await sheet.getByTestId("sheet-amount").fill("20");
  await expect(sheet.getByTestId("sheet-fee")).toContainText("0.20");
  await expect(sheet.getByTestId("sheet-rule")).not.toContainText(/[A-Za-z]{4,}/);
  // A new account has no money: the sheet says so in Japanese, with what the order would take,
  // and nothing can be sent.
  await expect(sheet.getByText(words("ja", "errors").insufficient_funds)).toBeVisible();
  await expect(sheet.getByText(words("ja", "errors").insufficient_funds)).toContainText("20.20");
  await expect(sheet.getByTestId("sheet-confirm-up")).toBeDisabled();
  await expect(sheet.getByTestId("sheet-confirm-down")).toBeDisabled();
});
