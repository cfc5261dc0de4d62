/**
 * Terms need two people, and an order carries the terms it was shown (decision 121), at 390×844
 * in English and Thai: a user opens the order sheet for ETH/USDT's 60 s delivery; meanwhile
 * operator A (signed in with a code) proposes a lower payout in the console and operator B opens
 * it; the user's confirmation is refused with the new terms shown, and the next confirmation
 * places the order at them. The market's terms are put back the same two-operator way.
 */
import { expect, test, type APIRequestContext } from "@playwright/test";
import { answerStepUp, fund, keepShot, open, operatorApi, operatorPage, recordToasts, register, toastsSaid, words } from "./helpers";

const SYMBOL = "ETH/USDT";
const SECONDS = 60;

type Row = { id: number; symbol: string; name: string; feed_symbol: string; start_price: string; tick_size: string; fee_rate_bp: number; quote_tolerance_bp: number; trading_hours: string; enabled: boolean; sort: number; exposure_limit: string; durations: { seconds: number; profit_rate_bp: number; min_amount: string; max_amount: string }[] };

async function ethTerms(request: APIRequestContext): Promise<Row> {
  const list = await operatorApi(request, "/api/admin/products");
  return (list.data as Row[]).find((p) => p.symbol === SYMBOL)!;
}

/** Operator proposes, auditor opens: the market's 60 s payout back to `rate_bp`. */
async function putBack(request: APIRequestContext, rate_bp: number) {
  const p = await ethTerms(request);
  if (p.durations.find((d) => d.seconds === SECONDS)!.profit_rate_bp === rate_bp) return;
  const durations = p.durations.map((d) => ({ ...d, profit_rate_bp: d.seconds === SECONDS ? rate_bp : d.profit_rate_bp }));
  const saved = await operatorApi(request, "/api/admin/products/save", { ...p, enabled: p.enabled ? "1" : "0", durations: JSON.stringify(durations), reason: "journey: back to the seeded rate" });
  expect(saved.data.proposal_id, saved.msg).toBeGreaterThan(0);
  const opened = await operatorApi(request, `/api/admin/terms/proposals/${saved.data.proposal_id}/open`, {}, "auditor");
  expect(opened.code, opened.msg).toBe(1);
}

for (const lng of ["en", "th"] as const) {
  test(`terms (${lng}): operator A proposes a payout, operator B opens it, the open sheet is told and shows the new terms`, async ({ page, browser }) => {
    test.setTimeout(200_000);
    const trade = words(lng, "trade");
    const errors = words(lng, "errors");
    const admin = words("en", "admin");
    const { name, password } = await register(page);
    await fund(page.request, name, password, "200");
    const before = (await ethTerms(page.request)).durations.find((d) => d.seconds === SECONDS)!.profit_rate_bp;
    if (lng !== "en") {
      await open(page, "/pages/me/sub/setting");
      await page.getByRole("radio", { name: "ไทย" }).click();
      await expect(page.locator("html")).toHaveAttribute("lang", lng);
    }

    // The user opens the order sheet: 60 s at the payout in force.
    await open(page, "/pages/invest/index");
    await page.locator(`[data-testid="product-row"][data-symbol="${SYMBOL}"]`).click();
    await page.getByTestId("buy-up").click();
    const sheet = page.getByTestId("order-sheet");
    const sixty = sheet.locator(`[data-testid="duration-option"][data-seconds="${SECONDS}"]`);
    await sixty.click();
    await sheet.getByTestId("sheet-amount").fill("20");
    await expect(sixty).toContainText(`${before / 100}%`);

    try {
      // Operator A, signed in with a code, proposes 80 % in the console: it stands only as a proposal.
      const a = await operatorPage(browser, "operator");
      await open(a, "/admin/products");
      const form = a.getByTestId("product-form").filter({ hasText: SYMBOL }).first();
      const rates = form.getByLabel(admin.products.profit_rate_bp);
      const index = (await form.locator("tbody tr").allTextContents()).length;
      expect(index).toBeGreaterThan(1);
      // The durations are listed by seconds: 30, 60, 300.
      await rates.nth(1).fill("8000");
      await form.getByLabel(admin.reason).fill("journey: a lower payout");
      await form.getByRole("button", { name: admin.save }).click();
      const proposed = a.getByText(words("en", "errors").terms_proposed);
      // A save reloads the hub and writes the audit: slow on a busy machine.
      await expect(proposed.or(a.getByTestId("step-up-form"))).toBeVisible({ timeout: 30_000 });
      if (await a.getByTestId("step-up-form").isVisible()) await answerStepUp(a, "operator");
      const card = a.locator(`[data-testid="terms-proposal"][data-target="${SYMBOL}"]`);
      await expect(card).toBeVisible();
      await expect(card.getByTestId("terms-yours")).toBeVisible();
      await expect(card.getByTestId("terms-after")).toContainText("60 s · 80 %");
      await keepShot(a, { path: `tests/e2e/artifacts/terms-proposed-${lng}.png` });

      // Operator B opens it.
      const b = await operatorPage(browser, "auditor");
      await recordToasts(b);
      await open(b, "/admin/products");
      const theirs = b.locator(`[data-testid="terms-proposal"][data-target="${SYMBOL}"]`);
      await theirs.getByTestId("terms-open").click();
      await b.getByRole("alertdialog").getByRole("button", { name: words("en", "common").confirm }).click();
      // A confirmation older than five minutes on the server's clock asks for a code first (decision 118).
      // Told in a toast: read from the page's record of what it said (a 3 s toast is easy to miss on a loaded machine).
      // Each poll answers "told", "step-up", or what the page did say (so a failure shows the refusal).
      const opened = words("en", "errors").terms_opened;
      const state = async (stepUpCounts: boolean) => {
        const said = await toastsSaid(b);
        if (said.includes(opened)) return "told";
        if (stepUpCounts && (await b.getByTestId("step-up-form").isVisible())) return "step-up";
        // Nothing said yet: what the page shows instead (still sending, signed out, an error page), so a failure names it.
        const sending = (await theirs.count()) > 0 && (await theirs.getByTestId("terms-open").isDisabled({ timeout: 1_000 }).catch(() => "gone"));
        const dialogs = await b.locator('[role="dialog"]:visible, [role="alertdialog"]:visible, dialog[open]').allTextContents();
        return `said: ${JSON.stringify(said)}; sending: ${sending}; at ${new URL(b.url()).pathname}; dialogs: ${JSON.stringify(dialogs)}`;
      };
      // The page says something within the client's 60 s limit for an action (decision 142): a timeout is said too.
      await expect.poll(() => state(true), { timeout: 65_000 }).toMatch(/^(told|step-up)$/);
      if (await b.getByTestId("step-up-form").isVisible()) await answerStepUp(b, "auditor");
      await expect.poll(() => state(false), { timeout: 30_000 }).toBe("told");
      await expect(theirs).toHaveCount(0);
      await a.context().close();
      await b.context().close();

      // The user, still on the old sheet, confirms: refused, told why, and shown the new payout.
      await sheet.getByTestId("sheet-confirm-up").click();
      await expect(sheet.getByTestId("sheet-notice")).toHaveText(errors.terms_changed);
      await expect(sheet.getByTestId("sheet-terms-changed")).toHaveText(trade.sheet.terms_updated);
      await expect(sixty).toContainText("80%");
      await keepShot(page, { path: `tests/e2e/artifacts/terms-changed-${lng}.png` });
      // Confirming again takes the order at the terms now shown.
      await sheet.getByTestId("sheet-confirm-up").click();
      await expect(page).toHaveURL(/\/pages\/money\/index/);
      const position = page.getByTestId("position-row").first();
      await expect(position).toBeVisible();
      await open(page, `/pages/money/order?id=${await position.getAttribute("data-id")}`);
      await expect(page.getByText("80%").first()).toBeVisible();
    } finally {
      await putBack(page.request, before);
    }
  });
}
