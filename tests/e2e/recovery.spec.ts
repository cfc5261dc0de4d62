/**
 * Verified email and account recovery (decisions 138, 139), at 390x844 in English and Thai: the
 * user verifies their profile's email with a code read from the local mailbox (as an operator
 * reads it on /admin/mailbox), sees the resend countdown run and "resend" appear at 0, then
 * forgets their password: the code reaches the verified email, a new password is set, and they
 * sign in with it.
 *
 * The countdown: it is seen running in real seconds; then the page's clock and the server's test
 * clock (worker/clock.ts, this test server only) move the same 60 s forward, so "resend" appears
 * and the server takes the resend, as it would a minute later.
 */
import { expect, test, type Browser, type Page } from "@playwright/test";
import { account, hydrated, keepShot, open, operatorPage, register, signOut, submitProfileForm, words } from "./helpers";


/** The newest code the local mailbox holds for `to`, read on the console's mailbox page. */
async function codeFromMailbox(console: Page, to: string, after?: string): Promise<string> {
  let code = "";
  await expect(async () => {
    await console.goto(`/admin/mailbox?to=${encodeURIComponent(to)}`);
    const text = (await console.getByTestId("mailbox-text").first().textContent()) ?? "";
    code = /\b(\d{6})\b/.exec(text)?.[1] ?? "";
    expect(code).toMatch(/^\d{6}$/);
    if (after) expect(code).not.toBe(after);
  }).toPass({ timeout: 15_000 });
  return code;
}

async function seconds(page: Page): Promise<number> {
  return Number(await page.getByTestId("otp-countdown").getAttribute("data-seconds"));
}

async function fillProfile(page: Page, email: string) {
  await open(page, "/pages/me/sub/improve-info");
  await submitProfileForm(page, email);
}

let consolePage: Page | null = null;
async function mailbox(browser: Browser): Promise<Page> {
  consolePage ??= await operatorPage(browser);
  return consolePage;
}

for (const lng of ["en", "th"] as const) {
  test(`recovery (${lng}): verify the email with a mailed code, then forget the password and set a new one`, async ({ page, browser }) => {
    test.setTimeout(180_000);
    const auth = words(lng, "auth");
    const me = words(lng, "me");
    const common = words(lng, "common");
    // The page's clock runs in real time until the test moves it (the countdown's 60 s).
    await page.clock.install();
    const { name, password } = await register(page, account("rc"));
    if (lng !== "en") {
      await open(page, "/pages/me/sub/setting");
      await page.getByRole("radio", { name: "ไทย" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", lng);
    }
    const email = `${name}@example.com`;
    await fillProfile(page, email);

    // Verify the email: a code is sent, the countdown runs on the server's retry_after.
    const contact = page.getByTestId("contact-email");
    await expect(contact).toContainText(me.profile.unverified);
    await page.getByTestId("verify-email").click();
    await page.getByTestId("verify-email-send").click();
    const input = page.getByTestId("otp-input");
    await expect(input).toHaveAttribute("autocomplete", "one-time-code");
    await expect(input).toHaveAttribute("inputmode", "numeric");
    await expect(page.getByTestId("otp-countdown")).toBeVisible();
    const first = await seconds(page);
    expect(first).toBeGreaterThan(55);
    expect(first).toBeLessThanOrEqual(60);
    await expect(page.getByTestId("otp-countdown")).toContainText(common.code_input.resend_in.replace("{{seconds}}", String(first)));
    // It visibly runs: two real seconds later it shows less.
    await page.waitForTimeout(2_200);
    expect(await seconds(page)).toBeLessThanOrEqual(first - 2);
    await expect(page.getByTestId("otp-resend")).toHaveCount(0);
    await keepShot(page, { path: `tests/.reports/recovery-countdown-${lng}.png` });

    // A minute later (both clocks): "resend" replaces the countdown, and the server takes it.
    const console = await mailbox(browser);
    const firstCode = await codeFromMailbox(console, email);
    const moved = await (await page.request.post("/api/test/clock", { data: { advance_ms: 60_000 } })).json();
    expect(moved.code).toBe(1);
    await page.clock.fastForward(60_000);
    await expect(page.getByTestId("otp-resend")).toBeVisible();
    await expect(page.getByTestId("otp-resend")).toHaveText(common.code_input.resend);
    await expect(page.getByTestId("otp-countdown")).toHaveCount(0);
    await page.getByTestId("otp-resend").click();
    await expect(page.getByTestId("otp-countdown")).toBeVisible();
    expect(await seconds(page)).toBeGreaterThan(55);
    const code = await codeFromMailbox(console, email, firstCode);

    // Pasted whole, with a space, the field keeps the six digits.
    await input.focus();
    await page.keyboard.insertText(`${code.slice(0, 3)} ${code.slice(3)}`);
    await expect(input).toHaveValue(code);
    await page.getByTestId("verify-email-submit").click();
    await expect(page.getByTestId("contact-email-verified")).toHaveText(me.profile.verified);
    await keepShot(page, { path: `tests/.reports/recovery-verified-${lng}.png` });

    // Forgot password, from the login page.
    await signOut(page, lng);
    await page.getByTestId("forgot-link").click();
    await expect(page).toHaveURL(/\/pages\/user\/forgot$/);
    await expect(page.getByRole("heading", { name: auth.forgot_title })).toBeVisible();
    await hydrated(page);
    await page.getByTestId("forgot-account").fill(name);
    await page.getByTestId("forgot-send").click();
    await expect(page.getByTestId("forgot-finish")).toBeVisible();
    await expect(page.getByTestId("otp-countdown")).toBeVisible();
    const resetCode = await codeFromMailbox(console, email, code);
    await page.getByTestId("otp-input").fill(resetCode);
    await page.getByTestId("forgot-new-password").fill("recovered123");
    await page.getByTestId("forgot-confirm-password").fill("recovered123");
    await keepShot(page, { path: `tests/.reports/recovery-forgot-${lng}.png` });
    await page.getByTestId("forgot-submit").click();
    await expect(page).toHaveURL(/\/pages\/user\/login$/);

    // The old password no longer works; the new one signs in.
    await hydrated(page);
    await page.getByLabel(auth.account).fill(name);
    await page.getByLabel(auth.password, { exact: true }).fill(password);
    await page.getByRole("button", { name: auth.login_submit }).click();
    // The refusal itself, not the URL (which is already the login page's): the next tap must not
    // race the first answer.
    await expect(page.getByText(words(lng, "errors").login_failed)).toBeVisible();
    await expect(page).toHaveURL(/\/pages\/user\/login/);
    await page.getByLabel(auth.password, { exact: true }).fill("recovered123");
    await page.getByRole("button", { name: auth.login_submit }).click();
    await expect(page).toHaveURL(/\/$/);
  });
}

test.afterAll(async () => {
  await consolePage?.context().close();
});
