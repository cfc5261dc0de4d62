import { expect, test } from "@playwright/test";
import { account, expectKeyboardHeld, hydrated, login, open, operatorCode, recordToasts, register, toastsSaid, words } from "./helpers";

const en_common = words("en", "common");
const en_home = words("en", "home");
const en_me = words("en", "me");
const th_common = words("th", "common");
const th_me = words("th", "me");
const tabs = (page: import("@playwright/test").Page) => page.getByRole("navigation", { name: "tabs" });


test("register with WELCOME, land on home, switch to Thai, log out", async ({ page }) => {
  await open(page, "/");
  await expect(page).toHaveURL(/\/pages\/user\/login\?path=%2F$/);
  await page.getByRole("link", { name: "Register" }).click();
  await expect(page).toHaveURL(/\/pages\/user\/register/);
  // The rules are on the form before the user types.
  await expect(page.getByText("4–20 characters")).toBeVisible();

  const { name } = await register(page);
  await expect(page.getByRole("heading", { name: en_home.title })).toBeVisible();
  await expect(page.getByText(`Hello, ${name}`)).toBeVisible();
  await expect(page.getByTestId("balance-total")).toHaveText("0.00");
  await expect(page.getByTestId("contacts")).toContainText("proofline_support");
  await expect(page.locator(".banner img").first()).toBeVisible();

  await tabs(page).getByRole("link", { name: en_common.tabs.accounts }).click();
  await expect(page).toHaveURL(/\/pages\/me\/index$/);
  await expect(page.getByTestId("account-name")).toHaveText(name);
  await page.getByRole("link", { name: en_me.settings }).click();
  await expect(page).toHaveURL(/\/pages\/me\/sub\/setting$/);

  await page.getByRole("radio", { name: "ไทย" }).click();
  // The page reloads in Thai.
  await expect(page.locator("html")).toHaveAttribute("lang", "th");
  // The reloaded page answers clicks only once React has hydrated it.
  await hydrated(page);
  await expect(page.getByRole("heading", { name: th_me.settings_title })).toBeVisible();
  await expect(page.getByRole("radio", { name: "ไทย" })).toHaveAttribute("aria-checked", "true");

  await page.getByRole("button", { name: th_me.logout }).click();
  await expect(page.getByRole("alertdialog")).toContainText(th_me.logout_confirm);
  await page.getByRole("button", { name: th_common.confirm }).click();
  await expect(page).toHaveURL(/\/pages\/user\/login$/);
  await expect(page.locator("html")).toHaveAttribute("lang", "th");

  // Logged out for real: the wallet sends back to login.
  await open(page, "/pages/me/index");
  await expect(page).toHaveURL(/\/pages\/user\/login\?path=/);
});

test("a dialog keeps keyboard focus inside, Escape closes it, and focus returns to what opened it", async ({ page }) => {
  await register(page);
  await open(page, "/pages/me/sub/setting");
  const logout = page.getByRole("button", { name: en_me.logout });
  const dialog = page.getByRole("alertdialog");

  for (const how of ["Escape", "Cancel"] as const) {
    await logout.focus();
    await page.keyboard.press("Enter");
    await expect(dialog).toContainText(en_me.logout_confirm);
    await expect(dialog.getByRole("button", { name: en_common.confirm })).toBeFocused();
    // Round after round of Tab and Shift+Tab: focus never reaches the page behind the dialog.
    await expectKeyboardHeld(page, "[role=alertdialog]", 5);
    if (how === "Escape") await page.keyboard.press("Escape");
    else await dialog.getByRole("button", { name: en_common.cancel }).click();
    await expect(dialog).toHaveCount(0);
    // Still signed in, and the keyboard is back where it was.
    await expect(page).toHaveURL(/\/pages\/me\/sub\/setting$/);
    await expect(logout).toBeFocused();
  }
});

test("the language choice is stored on the account and comes back at login", async ({ page, context }) => {
  const { name, password } = await register(page);
  await open(page, "/pages/me/sub/setting");
  await page.getByRole("radio", { name: "日本語" }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", "ja");
  await context.clearCookies();
  await open(page, "/pages/user/login");
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await login(page, name, password);
  await expect(page).toHaveURL(/\/$/);
  await expect(page.locator("html")).toHaveAttribute("lang", "ja");
});

test("an old hash link lands on the same page, through login and back", async ({ page }) => {
  const { name, password } = await register(page);
  await page.context().clearCookies();
  await open(page, "/#/pages/me/sub/about");
  await expect(page).toHaveURL(/\/pages\/user\/login\?path=%2Fpages%2Fme%2Fsub%2Fabout/);
  await login(page, name, password);
  await expect(page).toHaveURL(/\/pages\/me\/sub\/about$/);
  await expect(page.getByRole("heading", { name: en_me.about_title })).toBeVisible();
});

test("incomplete forms, wrong passwords and toasts", async ({ page }) => {
  await open(page, "/pages/user/login");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByRole("status")).toHaveText(en_common.incomplete);
  await login(page, account("nobody"), "wrong1234");
  await expect(page.getByRole("status")).toHaveText("Incorrect account or password.");
  await expect(page).toHaveURL(/\/pages\/user\/login/);
});

test("an expired session shows the 401 modal, whose OK goes to login", async ({ page, context }) => {
  await register(page);
  await open(page, "/pages/me/sub/modify-pwd");
  // Another device signs this session out: the cookie's token is revoked server-side.
  const cookie = (await context.cookies()).find((c) => c.name === "pl_session")!;
  const token = JSON.parse(Buffer.from(decodeURIComponent(cookie.value), "base64").toString("utf8"));
  const res = await page.request.post("/api/user/logout", { headers: { token } });
  expect((await res.json()).code).toBe(1);

  await page.getByLabel(en_me.old_password).fill("journey123");
  await page.getByLabel(en_me.new_password, { exact: true }).fill("journey456");
  await page.getByLabel(en_me.confirm_new_password).fill("journey456");
  await page.getByRole("button", { name: en_me.pwd_submit }).click();
  const modal = page.getByRole("alertdialog");
  await expect(modal).toContainText(en_common.login_expired);
  // It cannot be dismissed: Escape (even twice, when the browser stops letting a page refuse it) leaves it open.
  await page.keyboard.press("Escape");
  await page.keyboard.press("Escape");
  await expect(modal).toBeVisible();
  await expect(modal.getByRole("button", { name: en_common.ok })).toBeFocused();
  await modal.getByRole("button", { name: en_common.ok }).click();
  await expect(page).toHaveURL(/\/pages\/user\/login\?path=%2Fpages%2Fme%2Fsub%2Fmodify-pwd/);
});

test("a network failure shows the 'error' toast", async ({ page }) => {
  await register(page);
  await recordToasts(page);
  await open(page, "/pages/me/sub/modify-pwd");
  await page.route("**/pages/me/sub/modify-pwd.data*", (route) => route.abort("internetdisconnected"));
  await page.getByLabel(en_me.old_password).fill("journey123");
  await page.getByLabel(en_me.new_password, { exact: true }).fill("journey456");
  await page.getByLabel(en_me.confirm_new_password).fill("journey456");
  await page.getByRole("button", { name: en_me.pwd_submit }).click();
  // The 2 s toast, from the page's record of what it said (a poll of the screen can miss it under load).
  await expect.poll(() => toastsSaid(page)).toContain(en_common.toast_error);
});

test("changing the password works and returns to the previous page", async ({ page }) => {
  const { name } = await register(page);
  await open(page, "/pages/me/index");
  await page.getByRole("link", { name: en_me.modify_pwd }).click();
  await page.getByLabel(en_me.old_password).fill("journey123");
  await page.getByLabel(en_me.new_password, { exact: true }).fill("journey456");
  await page.getByLabel(en_me.confirm_new_password).fill("journey456");
  await page.getByRole("button", { name: en_me.pwd_submit }).click();
  await expect(page.getByRole("status")).toContainText("Password changed");
  await expect(page).toHaveURL(/\/pages\/me\/index$/);
  await page.context().clearCookies();
  await open(page, "/pages/user/login");
  await login(page, name, "journey456");
  await expect(page).toHaveURL(/\/$/);
});

test("tabs: the current tab does not navigate, back refreshes the previous page, empty lists say so", async ({ page }) => {
  await register(page);
  let dataRequests = 0;
  page.on("request", (r) => {
    // Page data only: the me-tab badge asks for its unread count (service?unread=1) whenever the user channel connects.
    if (r.url().includes(".data") && !r.url().includes("unread=1")) dataRequests += 1;
  });
  await tabs(page).getByRole("link", { name: en_common.tabs.wallet }).click();
  await page.waitForTimeout(300);
  expect(dataRequests).toBe(0);

  await tabs(page).getByRole("link", { name: en_common.tabs.markets }).click();
  await expect(page).toHaveURL(/\/pages\/invest\/index$/);
  await expect(page.getByTestId("product-row").first()).toBeVisible();
  await expect(tabs(page).getByRole("link", { name: en_common.tabs.markets })).toHaveAttribute("aria-current", "page");

  await tabs(page).getByRole("link", { name: en_common.tabs.accounts }).click();
  await page.getByRole("link", { name: en_me.about }).click();
  await expect(page).toHaveURL(/\/pages\/me\/sub\/about$/);
  const refreshed = page.waitForRequest((r) => r.url().includes(".data"));
  await page.getByRole("button", { name: en_common.back }).click();
  await refreshed;
  await expect(page).toHaveURL(/\/pages\/me\/index$/);

  // A new user's lists are empty, and say so.
  await open(page, "/pages/me/sub/draw-record");
  await expect(page.getByText(en_common.no_data)).toBeVisible();
});

test("the console: operator login, audit log, logout", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await open(page, "/admin");
  await expect(page).toHaveURL(/\/admin\/login$/);
  await page.getByLabel("Operator account").fill("operator");
  await page.getByLabel("Password", { exact: true }).fill("operator12345");
  await page.getByRole("button", { name: "Log in" }).click();
  // The second step: a code from the operator's authenticator app (decision 117).
  await page.getByLabel("Authenticator code").fill(await operatorCode());
  await page.getByRole("button", { name: "Verify and log in" }).click();
  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.getByText("Registered users")).toBeVisible();
  await page.getByRole("link", { name: "Audit log" }).click();
  await expect(page.getByTestId("audit-table")).toContainText("Operator logged in");
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page).toHaveURL(/\/admin\/login$/);
});
