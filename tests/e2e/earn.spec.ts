import { expect, test, type Browser, type Page } from "@playwright/test";
import { fileURLToPath } from "node:url";
import { hydrated, keepShot, open, register, signInOperator, submitProfileForm, words } from "./helpers";

/**
 * The earn journey at a phone's size: complete the profile (ID photo and a drawn signature),
 * buy into the liquidity pool with the calculator open, see the first day's reward once the
 * server's clock has moved a day, redeem early and see the penalty in the records, then buy a
 * miner and see its first day's output. In English and in Japanese.
 */
const PHOTO = fileURLToPath(new URL("../fixtures/uploads/png-rgb.png", import.meta.url));
const DAY_MS = 86_400_000;

/** Money for the journey, the way users get it: a reported transfer an operator verifies. */
async function fund(page: Page, browser: Browser, name: string, amount: string) {
  await open(page, "/pages/me/sub/stored");
  await page.getByTestId("recharge-amount").fill(amount);
  await page.locator('input[name="tx_hash"]').fill("0x" + Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join(""));
  await page.getByTestId("upload-input").setInputFiles(PHOTO);
  await expect(page.getByTestId("upload-preview")).toBeVisible();
  await page.getByTestId("recharge-submit").click();
  await expect(page).toHaveURL(/\/pages\/me\/sub\/recharge-record/);
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US" });
  const op = await ctx.newPage();
  await signInOperator(op);
  await open(op, "/admin/deposits");
  const row = op.getByTestId("deposit-row").filter({ hasText: name });
  await row.getByTestId("approve-tx-ref").fill("verified-earn");
  await row.getByTestId("approve-deposit").click();
  await op.getByRole("alertdialog").getByRole("button", { name: words("en", "common").confirm }).click();
  await expect(op.getByTestId("deposit-row").filter({ hasText: name })).toHaveCount(0);
  await ctx.close();
}

/** Moves the test server's earn clock forward (only a test deployment has this route). */
async function passDays(page: Page, days: number) {
  const r = await page.request.post("/api/test/clock", { data: { advance_ms: days * DAY_MS } });
  expect((await r.json()).code).toBe(1);
}

async function confirmDialog(page: Page, lng: string) {
  await page.getByRole("alertdialog").getByRole("button", { name: words(lng, "common").confirm }).click();
}

for (const lng of ["en", "ja"] as const) {
  test(`earn journey (${lng}): profile, pool with calculator, first reward, early redemption, miner output`, async ({ page, browser }) => {
    test.setTimeout(180_000);
    const { name } = await register(page);
    await fund(page, browser, name, "2000");
    if (lng !== "en") {
      await open(page, "/pages/me/sub/setting");
      await page.getByRole("radio", { name: "日本語" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", "ja");
    }

    // Without a profile the loan service says so first, with the way to complete it.
    await open(page, "/pages/me/sub/loan");
    await page.getByTestId("loan-amount").fill("1000");
    await page.getByTestId("loan-buy").click();
    await confirmDialog(page, lng);
    await expect(page.getByTestId("loan-profile-gate")).toBeVisible();
    await page.getByTestId("loan-improve-info").click();
    await expect(page).toHaveURL(/\/pages\/me\/sub\/improve-info/);

    // The profile: details, an ID photo, and a signature drawn with the finger (mouse here).
    await hydrated(page);
    await submitProfileForm(page, "ann@example.com");
    await keepShot(page, { path: `tests/.reports/earn-profile-${lng}.png` });

    // The pool: the calculator shows what 1,000 pays before anything is bought.
    await open(page, "/pages/me/sub/loan");
    await page.getByTestId("loan-amount").fill("1000");
    await expect(page.getByTestId("loan-reward-per-day")).toContainText("6.80");
    await expect(page.getByTestId("loan-total-reward")).toContainText("47.60");
    await expect(page.getByTestId("loan-redeem-row")).toHaveCount(7);
    await keepShot(page, { path: `tests/.reports/earn-calculator-${lng}.png`, fullPage: true });
    await page.getByTestId("loan-buy").click();
    await confirmDialog(page, lng);
    await expect(page).toHaveURL(/\/pages\/me\/sub\/loan-records/);
    const order = page.getByTestId("loan-order").first();
    await expect(order).toHaveAttribute("data-status", "pending");

    // A day passes on the server: the first reward is credited, once.
    await passDays(page, 1);
    await open(page, "/pages/me/sub/loan-records");
    await expect(order.getByTestId("loan-order-profit")).toContainText("6.80");

    // Early redemption with 6 of 7 days left: 1 % x 6 x 1,000 = 60 penalty, 940 back, reward kept.
    await order.getByTestId("loan-redeem").click();
    await expect(page.getByRole("alertdialog")).toContainText(words(lng, "wallet").earn.records.redeem_confirm);
    await confirmDialog(page, lng);
    await expect(order).toHaveAttribute("data-status", "redeemed");
    await expect(order.getByTestId("loan-order-penalty")).toContainText("60.00");
    await expect(order.getByTestId("loan-order-redeem-amount")).toContainText("940.00");
    await expect(order.getByTestId("loan-order-profit")).toContainText("6.80");
    await keepShot(page, { path: `tests/.reports/earn-records-${lng}.png`, fullPage: true });

    // The miner: buy one, a day passes, its first output is listed.
    await open(page, "/pages/me/sub/machine");
    await page.getByTestId("miner-plan").first().getByTestId("miner-buy").click();
    await confirmDialog(page, lng);
    await expect(page.getByTestId("miner-machine")).toHaveCount(1);
    await passDays(page, 1);
    await open(page, "/pages/me/sub/machine");
    const output = page.getByTestId("miner-output").first();
    await expect(output).toHaveAttribute("data-day", "1");
    await expect(output).toContainText("12.00");
    await expect(page.getByTestId("miner-total-output")).toContainText("12.00");
    await expect(page.locator("html")).toHaveAttribute("lang", lng);
  });
}
