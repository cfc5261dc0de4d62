/**
 * Account safety as one user lives it, at 390×844, in English and Thai: turn on two-factor with
 * the code computed from the key the page shows, sign out, sign in with the password and then a
 * code, see this device in the session list, set a daily stake limit, and watch an order above
 * it refused with the limit's words. (Each part has its own deeper spec: two-factor, devices,
 * limits, notifications.)
 */
import { expect, test } from "@playwright/test";
import { appCode, enableTwoFactor, fund, hydrated, keepShot, open, register, signOut, words } from "./helpers";

for (const lng of ["en", "th"] as const) {
  test(`account safety (${lng}): two-factor, sessions, a daily stake limit`, async ({ page }) => {
    test.setTimeout(150_000);
    const me = words(lng, "me");
    const auth = words(lng, "auth");
    const common = words(lng, "common");
    const errors = words(lng, "errors");
    const { name, password } = await register(page);
    await fund(page.request, name, password, "200");
    if (lng !== "en") {
      await open(page, "/pages/me/sub/setting");
      await page.getByRole("radio", { name: "ไทย" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", lng);
    }

    // Two-factor on, from the key shown beside the QR code.
    const key = await enableTwoFactor(page, lng, password);

    // Signed out, the password alone is not enough; the app's next code signs in.
    await signOut(page, lng);
    await hydrated(page);
    await page.getByLabel(auth.account).fill(name);
    await page.getByLabel(auth.password, { exact: true }).fill(password);
    await page.getByRole("button", { name: auth.login_submit }).click();
    await expect(page.getByTestId("two-factor-prompt")).toHaveText(auth.two_factor_prompt);
    await page.getByLabel(common.code_input.label).fill(appCode(key, Date.now() + 30_000));
    await page.getByRole("button", { name: auth.two_factor_submit }).click();
    await expect(page).toHaveURL(/\/$/);

    // The session list shows this device.
    await open(page, "/pages/me/sub/devices");
    await expect(page.locator('[data-testid="session-row"][data-current="1"]')).toContainText(me.devices.this_device);
    await keepShot(page, { path: `tests/.reports/account-safety-sessions-${lng}.png`, fullPage: true });

    // A daily stake limit of 30, then an order of 40 refused with the limit's words.
    await open(page, "/pages/me/sub/limits");
    await page.getByTestId("limit-daily_stake").fill("30");
    await page.getByTestId("limits-save").click();
    await expect(page.getByText(me.limits.in_force.replace("{{value}}", "30.00"))).toBeVisible();
    await open(page, "/pages/money/index");
    await page.getByTestId("buy-up").click();
    const sheet = page.getByTestId("order-sheet");
    await sheet.getByTestId("sheet-amount").fill("40");
    await sheet.getByTestId("sheet-confirm-up").click();
    await expect(sheet.getByTestId("sheet-notice")).toContainText(errors.trading_limit_daily_stake.split("{{resets}}")[0].trim());
    await keepShot(page, { path: `tests/.reports/account-safety-refused-${lng}.png` });
  });
}
