import { expect, test, type Browser, type Page } from "@playwright/test";
import { fileURLToPath } from "node:url";
import { keepShot, login, open, operatorPage, register, words } from "./helpers";

/**
 * The trust journeys: what a user and two operators see where one person alone could create
 * money or steer a market.
 */
const SCREENSHOT = fileURLToPath(new URL("../fixtures/uploads/png-rgb.png", import.meta.url));
const admin = words("en", "admin");


function randomTxHash(): string {
  return "0x" + Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function ownAddress(page: Page): Promise<string> {
  await open(page, "/pages/me/sub/stored");
  await expect(page.getByTestId("address-own")).toBeVisible();
  const address = (await page.getByTestId("deposit-address").textContent())?.trim() ?? "";
  expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  return address;
}

test("each user sees their own deposit address; a large deposit waits for a second operator", async ({ page, browser }) => {
  test.setTimeout(120_000);
  // Another user's address is not this user's.
  const otherCtx = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: "en-US" });
  const other = await otherCtx.newPage();
  await register(other);
  const otherAddress = await ownAddress(other);
  await otherCtx.close();

  const { name } = await register(page);
  const address = await ownAddress(page);
  expect(address).not.toBe(otherAddress);
  // The same user always gets the same address.
  expect(await ownAddress(page)).toBe(address);
  await keepShot(page, { path: "tests/.reports/trust-own-address.png" });

  // 12,000 USDT: above the four-eyes threshold (10,000).
  await page.getByTestId("recharge-amount").fill("12000");
  await page.locator('input[name="tx_hash"]').fill(randomTxHash());
  await page.getByTestId("upload-input").setInputFiles(SCREENSHOT);
  await expect(page.getByTestId("upload-preview")).toBeVisible();
  await page.getByTestId("recharge-submit").click();
  await expect(page).toHaveURL(/\/pages\/me\/sub\/recharge-record/);

  // The first operator checks the transfer at the user's own address and approves what arrived.
  const first = await operatorPage(browser, "operator");
  await open(first, "/admin/deposits");
  const row = first.getByTestId("deposit-row").filter({ hasText: name }).first();
  await expect(row.getByTestId("deposit-sent-to")).toContainText(address);
  await expect(row.getByTestId("deposit-sent-to")).toContainText(name);
  await row.getByTestId("approve-amount").fill("11990");
  await row.getByTestId("approve-tx-ref").fill("chain-ref-1");
  await row.getByTestId("approve-deposit").click();
  await first.getByRole("alertdialog").getByRole("button", { name: words("en", "common").confirm }).click();
  // Nothing is credited yet: it waits for someone else, and the first operator cannot confirm it.
  const waiting = first.getByTestId("waiting-table").getByTestId("deposit-row").filter({ hasText: name });
  await expect(waiting).toHaveAttribute("data-status", "confirming");
  await expect(waiting.getByTestId("yours-first")).toBeVisible();
  await open(page, "/pages/me/sub/recharge-record");
  await expect(page.getByTestId("recharge-row").first().getByTestId("status")).toHaveAttribute("data-status", "confirming");
  await open(page, "/");
  await expect(page.getByTestId("balance-available")).toContainText("0.00");
  await first.context().close();

  // A second, different operator confirms the same amount and reference: now it is credited.
  const second = await operatorPage(browser, "auditor");
  await open(second, "/admin/deposits");
  const toConfirm = second.getByTestId("waiting-table").getByTestId("deposit-row").filter({ hasText: name });
  await expect(toConfirm.getByTestId("first-approver")).toContainText("operator");
  // They verify on their own: the amount and reference they type must match the first approval.
  await toConfirm.getByTestId("approve-amount").fill("11990");
  await toConfirm.getByTestId("approve-tx-ref").fill("chain-ref-1");
  await toConfirm.getByTestId("approve-deposit").click();
  await second.getByRole("alertdialog").getByRole("button", { name: words("en", "common").confirm }).click();
  await expect(second.getByTestId("waiting-table").getByTestId("deposit-row").filter({ hasText: name })).toHaveCount(0);
  await second.context().close();

  // The credit is what the operators verified, not what the user typed.
  await open(page, "/");
  await expect(page.getByTestId("balance-available")).toContainText("11,990.00");
  await open(page, "/pages/me/sub/recharge-record");
  await expect(page.getByTestId("recharge-row").first().getByTestId("status")).toHaveAttribute("data-status", "approved");
});

/** The number in a console cell ("1,234.50 USDT" → 1234.5). */
async function amountIn(cell: import("@playwright/test").Locator): Promise<number> {
  return Number(((await cell.textContent()) ?? "").replace(/[^0-9.]/g, ""));
}

test("an operator watches a market's open exposure rise as a user buys", async ({ page, browser }) => {
  test.setTimeout(120_000);
  const op = await operatorPage(browser, "operator");
  await open(op, "/admin/products");
  const eth = op.getByTestId("product-form").filter({ hasText: "ETH/USDT" });
  await eth.getByRole("link", { name: admin.products.risk_link }).click();
  await expect(op).toHaveURL(/\/admin\/products\/\d+$/);
  const upStakes = op.locator('[data-testid="exposure"] tr[data-side="up"] td').first();
  await expect(upStakes).toBeVisible();
  const before = await amountIn(upStakes);

  // The demo user buys up 100 USDT on ETH with the longest delivery, so it stays open.
  await open(page, "/pages/user/login");
  await login(page, "demo", "demo12345");
  await expect(page).toHaveURL(/\/$/);
  await open(page, "/pages/invest/index");
  await page.locator('[data-testid="product-row"][data-symbol="ETH/USDT"]').click();
  await page.getByTestId("buy-up").click();
  const sheet = page.getByTestId("order-sheet");
  const seconds = await sheet.getByTestId("duration-option").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-seconds"))));
  await sheet.locator(`[data-testid="duration-option"][data-seconds="${Math.max(...seconds)}"]`).click();
  await sheet.getByTestId("sheet-amount").fill("100");
  await sheet.getByTestId("sheet-confirm-up").click();
  await expect(page.getByTestId("position-row").first()).toBeVisible();

  // The console page refreshes itself: the up side's open stakes rose by exactly the stake.
  await expect.poll(() => amountIn(upStakes), { timeout: 20_000 }).toBe(before + 100);
  await expect(op.getByTestId("worst-case")).toBeVisible();
  await expect(op.getByTestId("exposure-chart")).toBeVisible();
  await keepShot(op, { path: "tests/.reports/trust-exposure.png" });

  // The user's statement names the stake in words, not as a code.
  await open(page, "/pages/me/sub/record");
  const stake = page.locator('[data-testid="record-row"][data-code="trade_stake"]').first();
  await expect(stake).toContainText(words("en", "wallet").record.code.trade_stake);
  await op.context().close();
});
