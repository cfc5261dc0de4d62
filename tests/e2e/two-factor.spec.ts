import { expect, test, type Page } from "@playwright/test";
import { appCode, axeViolations, enableTwoFactor, freshStep, hydrated, keepShot, open, register, signOut, words } from "./helpers";

/** No serious or critical WCAG 2 A/AA finding on what the page shows now. */
async function accessible(page: Page) {
  const bad = (await axeViolations(page)).filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(bad).toEqual([]);
}

for (const lng of ["en", "th"] as const) {
  test(`two-factor (${lng}): turn on with the key shown, sign out, sign in with password then code`, async ({ page }) => {
    test.setTimeout(120_000);
    const me = words(lng, "me");
    const auth = words(lng, "auth");
    const common = words(lng, "common");
    const { name, password } = await register(page);
    if (lng !== "en") {
      await open(page, "/pages/me/sub/setting");
      await page.getByRole("radio", { name: "ไทย" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", lng);
    }

    // The settings page leads to the security page, which says two-factor is off.
    await open(page, "/pages/me/sub/setting");
    await page.getByTestId("menu-security").click();
    await expect(page).toHaveURL(/\/pages\/me\/sub\/security$/);
    await expect(page.getByRole("heading", { name: me.security.title })).toBeVisible();
    await expect(page.getByTestId("two-factor-state")).toHaveText(me.security.state_off);

    // Enrol: the QR and the key as text; the phone computes the code from the key shown.
    await page.getByTestId("two-factor-start").click();
    await expect(page.getByTestId("two-factor-qr").locator("svg")).toBeVisible();
    const key = (await page.getByTestId("two-factor-key").textContent())!.trim();
    expect(key).toMatch(/^[A-Z2-7]{32}$/);
    await keepShot(page, { path: `tests/e2e/artifacts/two-factor-enrol-${lng}.png` });
    await accessible(page);
    // Turning it on asks for the login password too: a wrong one is refused in the page's language.
    await expect(page.getByText(me.security.step_password)).toBeVisible();
    const passwordField = page.getByLabel(words(lng, "wallet").confirm.password, { exact: true });
    await passwordField.fill("wrong-password-1");
    await freshStep(page);
    await page.getByLabel(common.code_input.label).fill(appCode(key));
    await page.getByTestId("two-factor-enable").click();
    await expect(page.getByText(words(lng, "errors").password_wrong)).toBeVisible();
    await expect(page.getByTestId("recovery-codes")).toHaveCount(0);
    await passwordField.fill(password);
    await page.getByTestId("two-factor-enable").click();

    // Ten recovery codes, once.
    const codes = page.getByTestId("recovery-codes").locator("li");
    await expect(codes).toHaveCount(10);
    await expect(page.getByTestId("recovery-codes")).toContainText(me.security.codes_note);
    await keepShot(page, { path: `tests/e2e/artifacts/two-factor-codes-${lng}.png` });
    await page.getByTestId("recovery-codes-done").click();
    await expect(page.getByTestId("two-factor-state")).toHaveText(me.security.state_on);
    await expect(page.getByTestId("recovery-left")).toHaveText(me.security.recovery_left.replace("{{n}}", "10"));

    // Sign out.
    await signOut(page, lng);

    // The password alone does not sign in: the second step asks for the code.
    await hydrated(page);
    await page.getByLabel(auth.account).fill(name);
    await page.getByLabel(auth.password, { exact: true }).fill(password);
    await page.getByRole("button", { name: auth.login_submit }).click();
    await expect(page.getByTestId("two-factor-prompt")).toHaveText(auth.two_factor_prompt);
    await expect(page.getByRole("button", { name: common.code_input.use_recovery })).toBeVisible();
    await expect(page).toHaveURL(/\/pages\/user\/login$/);
    await keepShot(page, { path: `tests/e2e/artifacts/two-factor-login-${lng}.png` });
    await accessible(page);

    // The enrolment's code was used; the app's next one (one step ahead) finishes the sign-in.
    await page.getByLabel(common.code_input.label).fill(appCode(key, Date.now() + 30_000));
    await page.getByRole("button", { name: auth.two_factor_submit }).click();
    await expect(page).toHaveURL(/\/$/);

    await open(page, "/pages/me/sub/security");
    await expect(page.getByTestId("two-factor-state")).toHaveText(me.security.state_on);
    await keepShot(page, { path: `tests/e2e/artifacts/two-factor-on-${lng}.png`, fullPage: true });
    await accessible(page);
  });
}

test("two-factor on a wallet account: the device key's signature, then the code", async ({ page }) => {
  test.setTimeout(120_000);
  const auth = words("en", "auth");
  await open(page, "/pages/user/login2");
  await page.getByRole("button", { name: auth.device_key_use }).click();
  await expect(page).toHaveURL(/\/$/);
  const key = await enableTwoFactor(page, "en");
  await signOut(page, "en");

  await open(page, "/pages/user/login2");
  await page.getByRole("button", { name: auth.device_key_use }).click();
  await expect(page.getByTestId("two-factor-prompt")).toHaveText(auth.wallet_two_factor_prompt);
  await expect(page).toHaveURL(/\/pages\/user\/login2$/);
  await page.getByLabel(words("en", "common").code_input.label).fill(appCode(key, Date.now() + 30_000));
  await page.getByRole("button", { name: auth.two_factor_submit }).click();
  await expect(page).toHaveURL(/\/$/);
});
