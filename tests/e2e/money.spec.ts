import { expect, test, type Browser, type Page } from "@playwright/test";
import { fileURLToPath } from "node:url";
import { answerStepUp, expectKeyboardHeld, open, operatorPage, register, words } from "./helpers";

const SCREENSHOT = fileURLToPath(new URL("../fixtures/uploads/png-rgb.png", import.meta.url));
const TRC20 = "TCvAsN4KpsZMAYTpHeEYgt1YuoBPF4HT9S";

for (const lng of ["en", "ja"] as const) {
  test(`money journey (${lng}): bind, recharge, approve, withdraw, pay, records`, async ({ page, browser }) => {
    test.setTimeout(120_000);
    const { name, password } = await register(page);
    if (lng !== "en") {
      await open(page, "/pages/me/sub/setting");
      await page.getByRole("radio", { name: "日本語" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", "ja");
    }

    // Bind a TRC20 address.
    await open(page, "/pages/me/sub/add-wallet");
    await page.locator('input[name="address"]').fill(TRC20);
    // Where money may go is chosen with the login password, not with a session alone.
    await page.getByLabel(words(lng, "wallet").confirm.password, { exact: true }).fill(password);
    await page.getByTestId("add-wallet-submit").click();
    await expect(page).toHaveURL(/\/pages\/me\/sub\/wallet/);
    await expect(page.getByTestId("wallet-row")).toContainText(TRC20);

    // Recharge 500 USDT with a screenshot.
    await open(page, "/pages/me/sub/stored");
    await expect(page.getByTestId("deposit-address")).toBeVisible();
    await page.getByTestId("recharge-amount").fill("500");
    await page.locator('input[name="tx_hash"]').fill("0x" + Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join(""));
    await page.getByTestId("upload-input").setInputFiles(SCREENSHOT);
    await expect(page.getByTestId("upload-preview")).toBeVisible();
    await page.getByTestId("recharge-submit").click();
    await expect(page).toHaveURL(/\/pages\/me\/sub\/recharge-record/);
    await expect(page.getByTestId("recharge-row").first().getByTestId("status")).toHaveAttribute("data-status", "review");

    // The operator approves it in the console.
    const op = await operatorPage(browser);
    await open(op, "/admin/deposits");
    const row = op.getByTestId("deposit-row").filter({ hasText: name });
    await expect(row).toBeVisible();
    await expect(row.locator("img")).toBeVisible();
    // The screenshot opens full size as a modal: Tab stays in it, Escape closes it and the keyboard
    // is back on the thumbnail; a click on the picture closes it too.
    const shot = row.getByTestId("deposit-shot");
    const lightbox = op.getByTestId("lightbox");
    await shot.focus();
    await op.keyboard.press("Enter");
    await expect(lightbox).toBeVisible();
    await expectKeyboardHeld(op, '[data-testid="lightbox"]', 6);
    await op.keyboard.press("Escape");
    await expect(lightbox).toHaveCount(0);
    await expect(shot).toBeFocused();
    await shot.click();
    await lightbox.locator("img").click();
    await expect(lightbox).toHaveCount(0);
    // The operator credits what they verified: the amount (prefilled with the claim) and the reference.
    await expect(row.getByTestId("approve-amount")).toHaveValue("500.00");
    await row.getByTestId("approve-tx-ref").fill("verified-on-chain");
    await row.getByTestId("approve-deposit").click();
    await op.getByRole("alertdialog").getByRole("button", { name: words("en", "common").confirm }).click();
    await expect(op.getByTestId("deposit-row").filter({ hasText: name })).toHaveCount(0);

    // The balance shows it (the page is refreshed live over the user channel).
    await open(page, "/");
    await expect(page.getByTestId("balance-available")).toContainText("500");

    // A new address opens for withdrawals after the allow-list's wait (24 h): move the test server's clock past it.
    expect((await page.request.post("/api/test/clock", { data: { advance_ms: 25 * 3_600_000 } })).ok()).toBe(true);

    // Withdraw 100: fee 1.00, arrival 99.00, shown before submitting.
    await open(page, "/pages/me/sub/draw-money");
    await expect(page.getByTestId("withdraw-available")).toContainText("500");
    await page.getByTestId("withdraw-amount").fill("100");
    await expect(page.getByTestId("withdraw-fee")).toContainText("1.00");
    await expect(page.getByTestId("withdraw-actual")).toContainText("99.00");
    await page.getByLabel(words(lng, "wallet").confirm.password, { exact: true }).fill(password);
    await page.getByTestId("withdraw-submit").click();
    await expect(page).toHaveURL(/\/pages\/me\/sub\/draw-record/);
    await expect(page.getByTestId("withdraw-row").first().getByTestId("status")).toHaveAttribute("data-status", "review");

    // The operator pays it with a transaction reference.
    await open(op, "/admin/withdrawals");
    const wrow = op.getByTestId("withdrawal-row").filter({ hasText: name });
    await wrow.getByTestId("tx-ref-input").fill("0xPAID" + lng);
    await wrow.getByTestId("pay-withdrawal").click();
    await op.getByRole("alertdialog").getByRole("button", { name: words("en", "common").confirm }).click();
    // A day passed on the server's clock since the operator's last code: money waits for a new one,
    // then the payout goes through without being asked again (decision 118).
    await answerStepUp(op);
    await expect(op.getByTestId("withdrawal-row").filter({ hasText: name })).toHaveCount(0);
    await op.context().close();

    // Both record pages show the final states, in the user's language.
    await open(page, "/pages/me/sub/draw-record");
    const paid = page.getByTestId("withdraw-row").first();
    await expect(paid.getByTestId("status")).toHaveAttribute("data-status", "paid");
    await expect(paid).toContainText("0xPAID" + lng);
    await open(page, "/pages/me/sub/recharge-record");
    await expect(page.getByTestId("recharge-row").first().getByTestId("status")).toHaveAttribute("data-status", "approved");
    await expect(page.locator("html")).toHaveAttribute("lang", lng);
    await open(page, "/");
    await expect(page.getByTestId("balance-available")).toContainText("400");
    // The statement lists each transfer with its balance after.
    await open(page, "/pages/me/sub/record");
    await expect(page.getByTestId("record-row").first()).toBeVisible();
    expect(await page.getByTestId("record-row").count()).toBeGreaterThanOrEqual(4);
  });
}

test("bank transfer recharge: the platform account to copy, an incomplete form said first, then the report", async ({ page }) => {
  await register(page);
  await open(page, "/pages/me/sub/stored2");
  await expect(page.getByTestId("platform-bank")).toBeVisible();
  await expect(page.getByTestId("min-deposit")).toContainText("10");
  // Nothing is sent without the amount and the receipt.
  await page.getByTestId("recharge-submit").click();
  await expect(page.getByText(words("en", "common").incomplete)).toBeVisible();
  await expect(page).toHaveURL(/\/pages\/me\/sub\/stored2/);
  await page.getByTestId("recharge-amount").fill("120");
  await page.getByTestId("upload-input").setInputFiles(SCREENSHOT);
  await expect(page.getByTestId("upload-preview")).toBeVisible();
  await page.getByTestId("recharge-submit").click();
  await expect(page).toHaveURL(/\/pages\/me\/sub\/recharge-record/);
  const row = page.getByTestId("recharge-row").first();
  await expect(row).toContainText("120");
  await expect(row.getByTestId("status")).toHaveAttribute("data-status", "review");
});

test("a transaction hash already reported is refused, said in the user's language (ja)", async ({ page }) => {
  await register(page);
  await open(page, "/pages/me/sub/setting");
  await page.getByRole("radio", { name: "日本語" }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", "ja");
  const hash = "0x" + Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
  for (const typed of [hash, hash.toUpperCase().replace("0X", "0x")]) {
    await open(page, "/pages/me/sub/stored");
    await page.getByTestId("recharge-amount").fill("100");
    await page.locator('input[name="tx_hash"]').fill(typed);
    await page.getByTestId("upload-input").setInputFiles(SCREENSHOT);
    await expect(page.getByTestId("upload-preview")).toBeVisible();
    await page.getByTestId("recharge-submit").click();
    if (typed === hash) await expect(page).toHaveURL(/\/pages\/me\/sub\/recharge-record/);
  }
  // The second report (same hash, other letter case) stays on the form with the reason.
  await expect(page.getByText(words("ja", "errors").tx_hash_used)).toBeVisible();
  await expect(page).toHaveURL(/\/pages\/me\/sub\/stored/);
});
