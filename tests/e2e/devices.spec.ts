import { expect, test, type Browser, type Page } from "@playwright/test";
import { account, hydrated, keepShot, open, words } from "./helpers";

/*
 * Passkeys and sessions in Chromium, at 390×844, in English and Thai: a virtual authenticator
 * (CDP WebAuthn: ctap2, internal, resident keys, user verification) registers a passkey, the
 * user signs out and back in with it; a second browser signs in with the password, the first
 * sees two sessions and ends the other, whose next page load lands on login.
 *
 * WebAuthn refuses IP addresses as relying-party ids, so these journeys use "localhost".
 */
const port = process.env.E2E_PORT ?? "8799";
const base = `http://localhost:${port}`;
const LOCALES: Record<string, string> = { en: "en-US", th: "th-TH" };

async function phone(browser: Browser, lng: string): Promise<Page> {
  const ctx = await browser.newContext({ baseURL: base, viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: LOCALES[lng] });
  return ctx.newPage();
}

/** A platform authenticator that keeps discoverable credentials and verifies its user without asking. */
async function addAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
}

async function registerIn(page: Page, lng: string, name: string, password: string) {
  const auth = words(lng, "auth");
  await open(page, "/pages/user/register");
  await page.getByLabel(auth.account).fill(name);
  await page.getByLabel(auth.password, { exact: true }).fill(password);
  await page.getByLabel(auth.confirm_password).fill(password);
  await page.getByLabel(auth.invite_code).fill("WELCOME");
  await page.getByRole("button", { name: auth.register_submit }).click();
  await expect(page).toHaveURL(/\/$/);
}

async function confirmDialog(page: Page, lng: string) {
  await page.getByRole("alertdialog").getByRole("button", { name: words(lng, "common").confirm }).click();
}

for (const lng of ["en", "th"]) {
  test(`passkey sign-in and ending another session (${lng})`, async ({ browser }) => {
    const me = words(lng, "me");
    const auth = words(lng, "auth");
    const errors = words(lng, "errors");
    const name = account(`pk${lng}`);
    const password = "journey123";
    const page = await phone(browser, lng);
    await addAuthenticator(page);
    await registerIn(page, lng, name, password);

    // Settings has the one row to the devices page, which links to the passkeys page.
    await open(page, "/pages/me/sub/setting");
    await page.getByTestId("menu-devices").click();
    await expect(page).toHaveURL(/\/pages\/me\/sub\/devices$/);
    await page.getByTestId("menu-passkeys").click();
    await expect(page).toHaveURL(/\/pages\/me\/sub\/passkeys$/);
    await hydrated(page);
    await page.getByTestId("passkey-name").fill("Pixel");
    await page.getByTestId("passkey-password").fill(password);
    await page.getByTestId("add-passkey").click();
    await expect(page.getByText(errors.passkey_added)).toBeVisible();
    await expect(page.getByTestId("passkey-row")).toHaveCount(1);
    await expect(page.getByTestId("passkey-row")).toContainText("Pixel");
    await expect(page.getByTestId("passkey-row")).toContainText(me.passkeys.never_used);
    await keepShot(page, { path: `tests/.reports/devices-passkeys-${lng}.png` });

    // Sign out, then back in with the passkey: no account typed.
    await open(page, "/pages/me/sub/setting");
    await page.getByRole("button", { name: me.logout }).click();
    await confirmDialog(page, lng);
    await expect(page).toHaveURL(/\/pages\/user\/login/);
    await hydrated(page);
    await expect(page.getByTestId("passkey-sign-in")).toHaveText(new RegExp(auth.passkey_sign_in));
    await page.waitForTimeout(400); // the page transition fades in
    await keepShot(page, { path: `tests/.reports/devices-login-${lng}.png` });
    await page.getByTestId("passkey-sign-in").click();
    await expect(page).toHaveURL(/\/$/);

    // A second browser signs in with the password.
    const other = await phone(browser, lng);
    await open(other, "/pages/user/login");
    await other.getByLabel(auth.account).fill(name);
    await other.getByLabel(auth.password, { exact: true }).fill(password);
    await other.getByRole("button", { name: auth.login_submit, exact: true }).click();
    await expect(other).toHaveURL(/\/$/);

    // The first sees both sessions (the registration's ended at sign-out), and the history.
    await open(page, "/pages/me/sub/devices");
    const rows = page.getByTestId("session-row");
    await expect(rows).toHaveCount(2);
    await expect(page.locator('[data-testid="session-row"][data-current="1"]')).toContainText(me.devices.this_device);
    await expect(page.getByTestId("attempt-row").first()).toContainText(me.devices.method_password);
    await expect(page.getByTestId("login-history")).toContainText(me.devices.method_passkey);
    await keepShot(page, { path: `tests/.reports/devices-sessions-${lng}.png`, fullPage: true });
    await page.locator('[data-testid="session-row"][data-current="0"]').getByTestId("end-session").click();
    await confirmDialog(page, lng);
    await expect(page.getByText(errors.session_ended)).toBeVisible();
    await expect(rows).toHaveCount(1);

    // The ended session's next page load goes to login.
    await other.goto("/pages/me/index");
    await expect(other).toHaveURL(/\/pages\/user\/login/);

    // Rename and remove the passkey.
    await open(page, "/pages/me/sub/passkeys");
    await page.getByTestId("passkey-rename").click();
    await page.getByTestId("passkey-rename-input").fill("Work phone");
    await page.getByTestId("passkey-rename-save").click();
    await expect(page.getByTestId("passkey-row")).toContainText("Work phone");
    await page.getByTestId("passkey-remove").click();
    await confirmDialog(page, lng);
    await expect(page.getByTestId("passkey-row")).toHaveCount(0);
    await other.context().close();
    await page.context().close();
  });
}
