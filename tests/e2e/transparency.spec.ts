import { expect, test } from "@playwright/test";
import { fund, keepShot, open, operatorApi, register, words } from "./helpers";

/**
 * Verify in the browser (issue 16): a user's settled order is checked against the signed
 * transparency log by the page itself, step by step, in English and in Thai; an answer
 * rewritten on the way makes the page say which step failed.
 */
const en = words("en", "trade").verify;
const th = words("th", "trade").verify;

// These journeys rewrite the page's own requests with page.route, which Playwright cannot see
// once a service worker controls the page; the service worker is the shell journey's subject.
test.use({ serviceWorkers: "block" });

test("a settled order verifies in the browser, in English and Thai; a rewritten leaf fails", async ({ page }) => {
  test.setTimeout(120_000);
  const { name, password } = await register(page);
  const token = await fund(page.request, name, password, "100");
  // A 30-second order through the API, as the order sheet would place it.
  const markets = await (await page.request.post("/api/index/product_list")).json();
  const btc = markets.data.find((m: { symbol: string }) => m.symbol === "BTC/USDT");
  const quote = (await (await page.request.post("/api/index/product", { data: { id: btc.id } })).json()).data.price;
  const placed = await (await page.request.post("/api/order/addorder", { headers: { token }, data: { product_id: btc.id, direction: "up", amount: "10", seconds: 30, quote_price: quote, client_order_id: `e2e-verify-${Date.now()}` } })).json();
  expect(placed.code, placed.msg).toBe(1);

  await open(page, `/pages/money/order?id=${placed.data.id}`);
  // Settled by the hub, then sequenced into the log within seconds.
  await expect(page.getByTestId("order-status")).not.toHaveAttribute("data-status", "open", { timeout: 60_000 });
  await page.reload();
  await expect(page.getByRole("heading", { name: en.title })).toBeVisible();
  const verdict = page.getByTestId("verify-verdict");
  await expect(async () => {
    await page.getByTestId("verify-button").click();
    await expect(verdict).toHaveText(en.all_ok, { timeout: 3_000 });
  }).toPass({ timeout: 30_000 });
  for (const step of ["signature_holds", "leaf_matches", "proof_leads_to_root", "consistent_with_last"]) {
    await expect(page.getByTestId(`verify-step-${step}`)).toHaveAttribute("data-ok", "true");
    await expect(page.getByTestId(`verify-step-${step}`)).toContainText(en.step[step].ok);
  }
  // The check ran in this page and recorded its time; the 100 ms target is the bench's to hold
  // (a time bound here would fail on a loaded machine, not on a slow check).
  expect(Number(await verdict.getAttribute("data-ms"))).toBeGreaterThanOrEqual(0);
  await keepShot(page, { path: "tests/e2e/artifacts/verify-en.png" });

  // Thai, the same order, the same browser (it remembers the log's key and the last checkpoint).
  await page.context().addCookies([{ name: "lng", value: Buffer.from(JSON.stringify("th")).toString("base64"), url: new URL(page.url()).origin }]);
  await page.reload();
  // As above: a tap before the page has hydrated does nothing, so tap until the check answers.
  await expect(async () => {
    await page.getByTestId("verify-button").click();
    await expect(verdict).toHaveText(th.all_ok, { timeout: 3_000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId("verify-step-consistent_with_last")).toContainText(th.step.consistent_with_last.ok);
  await keepShot(page, { path: "tests/e2e/artifacts/verify-th.png" });

  // A line of the statement (the stake that bought the order) verifies the same way.
  const lines = (await (await page.request.post("/api/user/records", { headers: { token }, data: {} })).json()).data.items as { id: number; code: string }[];
  const stake = lines.find((l) => l.code === "trade_stake")!;
  await open(page, `/pages/me/sub/trade-detail?id=${stake.id}`);
  await page.getByTestId("verify-button").click();
  await expect(verdict).toHaveText(th.transfer.all_ok);

  // Someone rewrites the outcome on the way: the page finds it.
  await page.route("**/pages/proof/check*", async (route) => {
    const res = await route.fetch();
    // The answer is Remix's stream encoding; the leaf is a JSON string inside it (quotes escaped).
    const text = (await res.text()).replace(/\\"outcome\\":\\"(won|lost|tie|void)\\"/, (_: string, o: string) => `\\"outcome\\":\\"${o === "won" ? "lost" : "won"}\\"`);
    await route.fulfill({ response: res, body: text });
  });
  // A fresh load of the order, hydrated before the tap (going back could restore the earlier,
  // verified page from the back-forward cache, and a tap before hydration is lost).
  await open(page, `/pages/money/order?id=${placed.data.id}`);
  await page.getByTestId("verify-button").click();
  await expect(verdict).toHaveText(th.failed);
  await expect(page.getByTestId("verify-step-leaf_matches")).toHaveAttribute("data-ok", "false");
  await expect(page.getByTestId("verify-step-proof_leads_to_root")).toHaveAttribute("data-ok", "false");
});

test("the public /proof page, signed out: the latest signed checkpoint, the key, how to check, the history", async ({ page }) => {
  const words_ = words("en", "trade").proof_page;
  await open(page, "/proof");
  await expect(page).toHaveURL(/\/proof$/);
  await expect(page.getByRole("heading", { name: words_.latest })).toBeVisible();
  const key = (await (await page.request.get("/api/proof/key")).json()).data.verifier_key;
  await expect(page.getByTestId("proof-key")).toHaveText(key);
  await expect(page.getByRole("heading", { name: words_.how })).toBeVisible();
  await keepShot(page, { path: "tests/e2e/artifacts/proof-page-en.png", fullPage: true });
});

test("proof of liabilities: after a snapshot the user's balance is verified as included, in English and Thai", async ({ page }) => {
  const { name, password } = await register(page);
  await fund(page.request, name, password, "75");
  const taken = await operatorApi(page.request, "/api/admin/proof/liabilities");
  expect(taken.code, taken.msg).toBe(1);
  const en_ = words("en", "trade").liabilities;
  const th_ = words("th", "trade").liabilities;
  await open(page, "/pages/me/sub/liabilities");
  await expect(page.getByTestId("liabilities-verdict")).toHaveText(en_.verified);
  await expect(page.getByTestId("liabilities-included")).toContainText("75.00");
  await keepShot(page, { path: "tests/e2e/artifacts/liabilities-en.png" });
  await page.context().addCookies([{ name: "lng", value: Buffer.from(JSON.stringify("th")).toString("base64"), url: new URL(page.url()).origin }]);
  await page.reload();
  await expect(page.getByTestId("liabilities-verdict")).toHaveText(th_.verified);
  await keepShot(page, { path: "tests/e2e/artifacts/liabilities-th.png" });
});
