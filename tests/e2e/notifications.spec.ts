import { expect, test, type Browser, type Page } from "@playwright/test";
import { fileURLToPath } from "node:url";
import { keepShot, open, operatorPage, register, words } from "./helpers";

const SCREENSHOT = fileURLToPath(new URL("../fixtures/uploads/png-rgb.png", import.meta.url));
const SHOTS = fileURLToPath(new URL("./artifacts/notifications/", import.meta.url));

/** A crypto recharge of `amount` with a screenshot, waiting for review. */
async function recharge(page: Page, amount: string) {
  await open(page, "/pages/me/sub/stored");
  await page.getByTestId("recharge-amount").fill(amount);
  await page.locator('input[name="tx_hash"]').fill("0x" + Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join(""));
  await page.getByTestId("upload-input").setInputFiles(SCREENSHOT);
  await expect(page.getByTestId("upload-preview")).toBeVisible();
  await page.getByTestId("recharge-submit").click();
  await expect(page).toHaveURL(/\/pages\/me\/sub\/recharge-record/);
}

async function approve(op: Page, name: string) {
  await open(op, "/admin/deposits");
  const row = op.getByTestId("deposit-row").filter({ hasText: name });
  await row.getByTestId("approve-tx-ref").fill("verified-on-chain");
  await row.getByTestId("approve-deposit").click();
  await op.getByRole("alertdialog").getByRole("button", { name: words("en", "common").confirm }).click();
  await expect(op.getByTestId("deposit-row").filter({ hasText: name })).toHaveCount(0);
}

for (const [lng, language] of [["en", "English"], ["th", "ไทย"]] as const) {
  test(`notifications (${lng}): a credited deposit reaches the badge live and reads in the page's language`, async ({ page, browser }) => {
    test.setTimeout(120_000);
    const n = words(lng, "notifications");
    const { name } = await register(page);
    if (lng !== "en") {
      await open(page, "/pages/me/sub/setting");
      await page.getByRole("radio", { name: language }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", lng);
    }
    await recharge(page, "50");

    // The me tab is open while the operator credits the deposit: nothing unread yet.
    await open(page, "/pages/me/index");
    await expect(page.getByTestId("notice-bell")).toBeVisible();
    await expect(page.getByTestId("service-badge")).toHaveCount(0);
    const op = await operatorPage(browser);
    await approve(op, name);

    // No reload: the user channel carries the new count to the badge and the bell.
    await expect(page.getByTestId("service-badge")).toHaveText("1");
    await expect(page.getByTestId("notice-bell-count")).toHaveText("1");
    await page.waitForTimeout(600); // the page transition settles before the picture
    await keepShot(page, { path: `${SHOTS}me-${lng}.png` });

    await page.getByTestId("notice-bell").click();
    await expect(page).toHaveURL(/\/pages\/me\/sub\/notifications/);
    const notice = page.getByTestId("notice").first();
    await expect(notice).toHaveAttribute("data-kind", "deposit_credited");
    await expect(notice).toContainText(n.kind.deposit_credited.title);
    await expect(notice).toContainText("50.00");
    await expect(page.getByTestId("notices-unread")).toBeVisible();
    await page.waitForTimeout(600); // the page transition settles before the picture
    await keepShot(page, { path: `${SHOTS}centre-${lng}.png`, fullPage: true });

    // Mark all read: the count and the badge go.
    await page.getByTestId("notices-read-all").click();
    await expect(page.getByTestId("notices-unread")).toHaveCount(0);
    await expect(page.getByTestId("notice").first()).not.toHaveClass(/nc-unread/);

    // Tapping the notice opens the deposit records.
    await page.getByTestId("notice").first().click();
    await expect(page).toHaveURL(/\/pages\/me\/sub\/recharge-record/);
    await open(page, "/pages/me/index");
    await expect(page.getByTestId("notice-bell")).toBeVisible();
    await expect(page.getByTestId("service-badge")).toHaveCount(0);
    await op.context().close();
  });
}
