import { expect, test, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { fund, keepShot, open, register, signInOperator, words } from "./helpers";

const ARTIFACTS = fileURLToPath(new URL("./artifacts/limits/", import.meta.url));

async function shot(page: Page, name: string) {
  await keepShot(page, { path: `${ARTIFACTS}${name}.png`, fullPage: true });
}

for (const lng of ["en", "th"] as const) {
  test(`limits (${lng}): set a daily stake limit, and an order above it is refused with the limit's words`, async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 390, height: 844 });
    const me = words(lng, "me").limits;
    const errors = words(lng, "errors");
    const { name, password } = await register(page);
    const token = await fund(page.request, name, password, "500");
    if (lng !== "en") {
      await open(page, "/pages/me/sub/setting");
      await page.getByRole("radio", { name: "ไทย" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", "th");
    }

    // From settings to the limits page; every limit starts unset.
    await open(page, "/pages/me/sub/setting");
    await page.getByTestId("settings-limits").click();
    await expect(page).toHaveURL(/\/pages\/me\/sub\/limits/);
    await expect(page.getByTestId("limit-daily_stake")).toHaveValue("");
    await expect(page.getByTestId("exclude-form")).toContainText(me.consequence_final);
    await shot(page, `${lng}-limits-empty`);

    // A daily stake limit of 30 USDT counts at once.
    await page.getByTestId("limit-daily_stake").fill("30");
    await page.getByTestId("limits-save").click();
    await expect(page.locator(".toast")).toContainText(errors.saved);
    await expect(page.getByText(me.in_force.replace("{{value}}", "30.00"))).toBeVisible();
    await shot(page, `${lng}-limits-set`);

    // On the trade page, an order of 40 is refused and the refusal names the limit.
    await open(page, "/pages/money/index");
    await page.getByTestId("buy-up").click();
    const sheet = page.getByTestId("order-sheet");
    await expect(sheet).toBeVisible();
    await sheet.getByTestId("sheet-amount").fill("40");
    await sheet.getByTestId("sheet-confirm-up").click();
    const refusal = errors.trading_limit_daily_stake.split("{{resets}}")[0].trim();
    await expect(sheet.getByTestId("sheet-notice")).toContainText(refusal);
    await shot(page, `${lng}-trade-refused`);
    // Nothing was placed.
    await open(page, "/pages/money/index");
    await expect(page.getByTestId("position-row")).toHaveCount(0);

    // The statement downloads as CSV for the chosen days, through the page (the token stays server-side).
    await open(page, "/pages/me/sub/record");
    await expect(page.getByTestId("csv-statement")).toContainText(words(lng, "wallet").export.title);
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("csv-statement").getByRole("button").click()]);
    expect(download.suggestedFilename()).toMatch(/^statement-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync(await download.path(), "utf8");
    expect(csv.startsWith("time_utc,transfer_id,account,code,amount_usdt,balance_after_usdt,ref_type,ref_id,counterparty\r\n")).toBe(true);
    expect(csv).toContain(",deposit,500.00,");
    await shot(page, `${lng}-statement-export`);

    // A newly bound address shows on the withdraw page when it opens.
    const bound = await (await page.request.post("/api/user/add_wallet", { headers: { token }, data: { chain: "TRC20", address: "TCvAsN4KpsZMAYTpHeEYgt1YuoBPF4HT9S", password } })).json();
    expect(bound.code, bound.msg).toBe(1);
    await open(page, "/pages/me/sub/draw-money");
    await expect(page.getByTestId("target-opens")).toContainText(words(lng, "wallet").draw_money.opens_at.split("{{time}}")[0].trim());
    await shot(page, `${lng}-withdraw-waiting`);

    // A two-day cool-off, confirmed after its consequences; then orders are refused with its end.
    await open(page, "/pages/me/sub/limits");
    await page.getByTestId("exclude-days").fill("2");
    await page.getByTestId("exclude-form").getByLabel(words(lng, "wallet").confirm.password, { exact: true }).fill(password);
    await page.getByTestId("exclude-submit").click();
    const dialog = page.getByRole("alertdialog");
    await expect(dialog).toContainText(me.exclude_confirm);
    await dialog.getByRole("button", { name: words(lng, "common").confirm }).click();
    await expect(page.getByTestId("exclusion-active")).toContainText(me.active_cool_off.split("{{until}}")[0].trim());
    await shot(page, `${lng}-cool-off`);
    await open(page, "/pages/money/index");
    await page.getByTestId("buy-up").click();
    await sheet.getByTestId("sheet-amount").fill("10");
    await sheet.getByTestId("sheet-confirm-up").click();
    await expect(sheet.getByTestId("sheet-notice")).toContainText(errors.self_excluded.split("{{until}}")[0].trim());
  });
}

test("the console: the allow-list's wait in money settings, a user's cool-off shown read-only", async ({ browser, request }) => {
  const account = `lim${Date.now().toString(36)}`.slice(0, 20);
  const reg = await (await request.post("/api/user/register", { data: { account, password: "journey123", password_confirm: "journey123", invite_code: "WELCOME" } })).json();
  const token = reg.data.userinfo.token as string;
  const excluded = await (await request.post("/api/user/self_exclude", { headers: { token }, data: { kind: "cool_off", days: 3, password: "journey123" } })).json();
  expect(excluded.code, excluded.msg).toBe(1);

  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US" });
  const op = await ctx.newPage();
  const admin = words("en", "admin");
  await signInOperator(op);

  await open(op, "/admin/money");
  const form = op.getByTestId("binding-wait-form");
  await expect(form.getByTestId("binding-wait-hours")).toHaveValue("24");
  await keepShot(op, { path: `${ARTIFACTS}console-money.png`, fullPage: false });

  await open(op, `/admin/users/${reg.data.userinfo.id}`);
  await expect(op.getByTestId("user-exclusion")).toContainText(admin.users.exclusion_cool_off.split("{{until}}")[0].trim());
  await keepShot(op, { path: `${ARTIFACTS}console-user.png` });
  await ctx.close();
});
