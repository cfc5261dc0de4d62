import { expect, test, type APIRequestContext, type Browser, type Page, type WebSocketRoute } from "@playwright/test";
import { hydrated, keepShot, open, operatorApi, signInOperator, words } from "./helpers";

/**
 * Customer service, two people at once: a visitor on a phone (390×844) who has not signed in,
 * and an operator in the console at desktop size. Everything the visitor sees arrives live.
 */
const PICTURE = new URL("../fixtures/uploads/png-rgb.png", import.meta.url).pathname;
/** Named .jpg, but HTML inside: the server's sniffing refuses it. */
const NOT_A_PICTURE = new URL("../fixtures/uploads/fake-jpeg-html.jpg", import.meta.url).pathname;
const LANGUAGES = [
  { lng: "en", browserLocale: "en-US" },
  { lng: "zh-Hans", browserLocale: "zh-CN" },
] as const;

async function operatorPage(browser: Browser): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false, locale: "en-US" });
  const page = await ctx.newPage();
  await signInOperator(page);
  return page;
}

async function visitorPage(browser: Browser, browserLocale: string): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: browserLocale });
  return ctx.newPage();
}

for (const { lng, browserLocale } of LANGUAGES) {
  test(`a visitor writes without an account, the operator answers live, and signing in keeps the conversation (${lng})`, async ({ browser }, testInfo) => {
    const w = words(lng, "service");
    const auth = words(lng, "auth");
    const mark = `${lng}-${Date.now().toString(36)}`;
    const visitor = await visitorPage(browser, browserLocale);

    // Open without login, in the visitor's language, with the contacts and the guest's reminder.
    await open(visitor, "/pages/me/sub/service");
    await expect(visitor).toHaveURL(/\/pages\/me\/sub\/service$/);
    await expect(visitor.locator("html")).toHaveAttribute("lang", lng);
    await expect(visitor.getByRole("heading", { name: w.title })).toBeVisible();
    await expect(visitor.getByTestId("sv-guest-note")).toContainText(w.sign_in);
    await expect(visitor.getByText(w.welcome)).toBeVisible();

    // A text and a picture, both confirmed by the server (one tick: sent).
    const question = `Where is my deposit? ${mark}`;
    await visitor.getByTestId("sv-text").fill(question);
    await visitor.getByTestId("sv-send").click();
    const mine = visitor.getByTestId("sv-message").filter({ hasText: question });
    await expect(mine).toHaveAttribute("data-author", "visitor");
    await expect(mine.getByTestId("sv-state")).toHaveAttribute("data-state", /sent|delivered/);
    await visitor.getByTestId("sv-picture-input").setInputFiles(PICTURE);
    await expect(visitor.locator('[data-testid="sv-message"][data-author="visitor"] [data-testid="sv-picture"]')).toBeVisible();
    await expect(visitor.getByTestId("sv-pending")).toHaveCount(0);
    // A file that only pretends to be a picture: the API's words, in the visitor's language.
    await visitor.getByTestId("sv-picture-input").setInputFiles(NOT_A_PICTURE);
    const refused = visitor.locator('[data-testid="sv-pending"][data-failed="true"]');
    await expect(refused).toContainText(words(lng, "errors").upload_not_image);
    await refused.getByTestId("sv-discard").click();
    await expect(visitor.getByTestId("sv-pending")).toHaveCount(0);
    const conversation = await visitor.getByTestId("sv-list").getAttribute("data-conversation");
    expect(conversation).toMatch(/^\d+$/);

    // The operator finds the guest's conversation in the inbox and opens it.
    const op = await operatorPage(browser);
    await op.getByTestId("nav-service").click();
    const row = op.locator(`[data-testid="sv-conv"][data-id="${conversation}"]`);
    await expect(row).toBeVisible();
    await row.click();
    const pane = op.getByTestId("sv-conversation");
    await expect(pane.getByTestId("sv-message").filter({ hasText: question })).toBeVisible();
    await expect(pane.getByTestId("sv-picture")).toBeVisible();
    await expect(op.getByTestId("sv-customer")).toContainText(words("en", "service").inbox.guest_info);

    // The operator has read it: the visitor's ticks turn to "read" without a reload.
    await expect(mine.getByTestId("sv-state")).toHaveAttribute("data-state", "read");
    await expect(mine.getByTestId("sv-state")).toContainText(w.state.read);

    // Typing shows on the visitor's phone; the answer arrives under the operator's name.
    await pane.getByTestId("sv-text").pressSequentially("We are checking", { delay: 20 });
    await expect(visitor.getByTestId("sv-typing")).toContainText(w.typing_operator);
    const answer = `We are checking your deposit ${mark}`;
    await pane.getByTestId("sv-text").fill(answer);
    await pane.getByTestId("sv-send").click();
    const reply = visitor.getByTestId("sv-message").filter({ hasText: answer });
    await expect(reply).toHaveAttribute("data-author", "operator");
    await expect(visitor.getByText("operator", { exact: true }).first()).toBeVisible();
    await expect(visitor.getByTestId("sv-typing")).toHaveCount(0);

    // Assign to me, a canned reply in the visitor's language, close and reopen: the visitor sees each live.
    const en = words("en", "service").inbox;
    await pane.getByTestId("sv-assign-me").click();
    await expect(pane.getByTestId("sv-assignee")).toContainText("operator");
    await expect(pane.getByTestId("sv-unassign")).toBeVisible();
    await op.getByTestId("sv-canned-new").click();
    const form = op.getByTestId("sv-canned-form");
    await expect(form.locator('select[name="lang"]')).toHaveValue(lng);
    await form.getByLabel(en.canned_title_label).fill(`Waiting ${mark}`);
    await form.getByLabel(en.canned_text_label).fill(`Thank you for waiting ${mark}`);
    await form.getByRole("button", { name: en.canned_save }).click();
    await op.getByTestId("sv-canned-item").filter({ hasText: `Waiting ${mark}` }).getByTestId("sv-canned-insert").click();
    await expect(pane.getByTestId("sv-text")).toHaveValue(`Thank you for waiting ${mark}`);
    await pane.getByTestId("sv-send").click();
    await expect(visitor.getByTestId("sv-message").filter({ hasText: `Thank you for waiting ${mark}` })).toBeVisible();
    await pane.getByTestId("sv-close").click();
    await expect(visitor.getByTestId("sv-system").last()).toHaveText(w.system.closed);
    await pane.getByTestId("sv-reopen").click();
    await expect(visitor.getByTestId("sv-system").last()).toHaveText(w.system.reopened);
    await expect(pane.getByTestId("sv-text")).toHaveValue("");

    await keepShot(visitor, { path: testInfo.outputPath(`service-${lng}-390.png`) });
    await keepShot(op, { path: testInfo.outputPath(`inbox-${lng}.png`) });

    // Signing in keeps the conversation: same messages, now in the demo account.
    await visitor.getByTestId("sv-sign-in").click();
    await expect(visitor).toHaveURL(/\/pages\/user\/login/);
    await hydrated(visitor);
    await visitor.getByLabel(auth.account).fill("demo");
    await visitor.getByLabel(auth.password, { exact: true }).fill("demo12345");
    await visitor.getByRole("button", { name: auth.login_submit }).click();
    await expect(visitor).toHaveURL(/\/pages\/me\/sub\/service$/);
    await expect(visitor.getByTestId("sv-guest-note")).toHaveCount(0);
    await expect(visitor.getByTestId("sv-message").filter({ hasText: question })).toBeVisible();
    await expect(visitor.getByTestId("sv-message").filter({ hasText: answer })).toBeVisible();

    // The operator's next answer reaches the signed-in user on another tab: the me tab's badge.
    const owned = await visitor.getByTestId("sv-list").getAttribute("data-conversation");
    await open(op, `/admin/service?id=${owned}`);
    await expect(op.getByTestId("sv-customer")).toContainText("demo");
    // The me tab's badge also counts the shared demo account's unread notices (decision 083):
    // read them first, so the badge counts this reply alone.
    await open(visitor, "/pages/me/sub/notifications");
    const readAll = visitor.getByTestId("notices-read-all");
    if (await readAll.isVisible()) {
      await readAll.click();
      await expect(readAll).toHaveCount(0);
    }
    await open(visitor, "/pages/me/index");
    await expect(visitor.getByTestId("service-badge")).toHaveCount(0);
    const followUp = `Found it ${mark}`;
    await op.getByTestId("sv-conversation").getByTestId("sv-text").fill(followUp);
    await op.getByTestId("sv-conversation").getByTestId("sv-send").click();
    await expect(visitor.getByTestId("service-badge")).toHaveText("1");
    // Opening the chat shows it and the badge goes out.
    await open(visitor, "/pages/me/sub/service");
    await expect(visitor.getByTestId("sv-message").filter({ hasText: followUp })).toBeVisible();
    await open(visitor, "/pages/me/index");
    await expect(visitor.getByTestId("service-badge")).toHaveCount(0);

    await op.context().close();
    await visitor.context().close();
  });
}

test("earlier messages load above without moving what the visitor is reading", async ({ browser, request }) => {
  const visitor = await visitorPage(browser, "en-US");
  await open(visitor, "/pages/me/sub/service");
  await visitor.getByTestId("sv-text").fill("Hello, is anyone there?");
  await visitor.getByTestId("sv-send").click();
  await expect(visitor.getByTestId("sv-message")).toHaveCount(1);
  const conversation = Number(await visitor.getByTestId("sv-list").getAttribute("data-conversation"));

  // An operator with a lot to say (through the API, to be quick): 35 answers.
  await operatorSends(request, conversation, Array.from({ length: 35 }, (_, i) => `Answer number ${i + 1}`));

  // The page shows the newest 30; the first question is further back.
  await open(visitor, "/pages/me/sub/service");
  await expect(visitor.getByTestId("sv-message")).toHaveCount(30);
  await expect(visitor.getByText("Hello, is anyone there?")).toHaveCount(0);
  const anchor = visitor.getByText("Answer number 6", { exact: true });
  await visitor.getByTestId("sv-load-earlier").scrollIntoViewIfNeeded();
  const before = (await anchor.boundingBox())!.y;
  await visitor.getByTestId("sv-load-earlier").click();
  await expect(visitor.getByTestId("sv-message")).toHaveCount(36);
  await expect(visitor.getByText(words("en", "service").beginning)).toBeAttached();
  await expect(visitor.getByText("Hello, is anyone there?")).toBeAttached();
  // What was on screen stays where it was: the older messages went in above it.
  const after = (await anchor.boundingBox())!.y;
  expect(Math.abs(after - before)).toBeLessThan(4);
  await visitor.context().close();
});

/** The console's answer, sent through the API (the journey above sends through the page). */
async function operatorSends(request: APIRequestContext, conversation: number, texts: string[]) {
  for (const text of texts) {
    const sent = await operatorApi(request, "/api/admin/service/send", { conversation_id: conversation, client_message_id: `op-${conversation}-${text.replace(/\W/g, "")}`, text });
    expect(sent.code).toBe(1);
  }
}

test("a dropped connection: what was written meanwhile arrives after reconnecting, once each", async ({ browser, request }) => {
  const visitor = await visitorPage(browser, "en-US");
  // The conversation socket goes through the test, which can cut it and keep it down.
  let down = false;
  let current: WebSocketRoute | null = null;
  await visitor.routeWebSocket(/\/ws\/service\/\d+/, (ws) => {
    if (down) return ws.close({ code: 1013, reason: "test: still down" });
    ws.connectToServer();
    current = ws;
  });
  await open(visitor, "/pages/me/sub/service");
  await visitor.getByTestId("sv-text").fill("Are you there?");
  await visitor.getByTestId("sv-send").click();
  await expect(visitor.getByTestId("sv-message")).toHaveCount(1);
  const conversation = Number(await visitor.getByTestId("sv-list").getAttribute("data-conversation"));
  await expect.poll(() => current !== null).toBe(true);

  down = true;
  await current!.close({ code: 1012, reason: "test: cut" });
  await expect(visitor.getByTestId("sv-offline")).toBeVisible();
  await operatorSends(request, conversation, ["While away 1", "While away 2", "While away 3"]);
  await expect(visitor.getByTestId("sv-message")).toHaveCount(1);

  down = false;
  await expect(visitor.getByTestId("sv-offline")).toHaveCount(0, { timeout: 20_000 });
  await expect(visitor.getByTestId("sv-message")).toHaveCount(4);
  // Live again: the next answer comes over the socket, and nothing shows twice.
  await operatorSends(request, conversation, ["Back live"]);
  await expect(visitor.getByText("Back live", { exact: true })).toBeVisible();
  await expect(visitor.getByTestId("sv-message")).toHaveCount(5);
  for (const text of ["While away 1", "While away 2", "While away 3"]) await expect(visitor.getByText(text, { exact: true })).toHaveCount(1);
  await visitor.context().close();
});

test("limits are said before and by the server, in the visitor's language (th)", async ({ browser }) => {
  const w = words("th", "service");
  const visitor = await visitorPage(browser, "th-TH");
  await open(visitor, "/pages/me/sub/service");
  await expect(visitor.locator("html")).toHaveAttribute("lang", "th");

  // Near 2,000 characters the counter appears; past it, sending is off.
  const box = visitor.getByTestId("sv-text");
  await box.fill("a".repeat(1990));
  await expect(visitor.getByTestId("sv-counter")).toHaveText(w.chars_left_other.replace("{{count}}", "10"));
  await box.fill("a".repeat(2001));
  await expect(visitor.getByTestId("sv-counter")).toHaveText(w.chars_over_other.replace("{{count}}", "1").replace("{{max}}", "2000"));
  await expect(visitor.getByTestId("sv-send")).toBeDisabled();

  // 20 messages a minute: the 21st is refused with the API's words, and can be removed.
  for (let i = 1; i <= 21; i += 1) {
    await box.fill(`ข้อความที่ ${i}`);
    await visitor.getByTestId("sv-send").click();
    if (i < 21) await expect(visitor.getByTestId("sv-message")).toHaveCount(i);
  }
  const refused = visitor.locator('[data-testid="sv-pending"][data-failed="true"]');
  await expect(refused).toContainText(words("th", "errors").service_rate_limited);
  await expect(visitor.getByTestId("sv-message")).toHaveCount(20);
  await visitor.context().close();
});
