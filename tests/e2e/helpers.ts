import { expect, type APIRequestContext, type Browser, type Page } from "@playwright/test";
import { Secret, TOTP } from "otpauth";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { codeForStep, currentStep, DEMO_OPERATORS, type DemoOperator } from "../../scripts/demo-operators";
import { e2eStateDir } from "../../scripts/lib";

export type { DemoOperator };

/**
 * Screenshots are for people to look at (tests/.reports, tests/e2e/artifacts). CI keeps only the
 * printed output, so under `CI=true` none is taken: the walk alone takes 620, about 90 ms of the
 * browser's CPU each. `E2E_SHOTS=1` takes them there too. A failing test's screenshot is
 * Playwright's own (`screenshot: "only-on-failure"`) and is taken either way.
 */
const KEEP_SHOTS = process.env.CI !== "true" || process.env.E2E_SHOTS === "1";

/** A page's or an element's screenshot to `options.path`, unless screenshots are off (KEEP_SHOTS). */
export async function keepShot(target: { screenshot(options: { path: string; fullPage?: boolean }): Promise<unknown> }, options: { path: string; fullPage?: boolean }): Promise<void> {
  if (KEEP_SHOTS) await target.screenshot(options);
}

/** A locale file, read from disk (the tests check what users see, in their words). */
export function words(lng: string, ns: string): any {
  return JSON.parse(readFileSync(new URL(`../../locales/${lng}/${ns}.json`, import.meta.url), "utf8"));
}

const en_auth = words("en", "auth");

let n = 0;
export function account(prefix = "e2e"): string {
  n += 1;
  return `${prefix}${Date.now().toString(36)}${n}`.slice(0, 20);
}

/**
 * Waits until React has hydrated the page (clicks before that are plain HTML). Between two
 * documents (a reload, a redirect) there is a moment with no root element: the check reads it
 * as "not yet" instead of throwing (a throw ends the wait at once: the shell journey's failure).
 */
export async function hydrated(page: Page, options?: { timeout?: number }) {
  await page.waitForFunction(() => document.documentElement?.dataset.hydrated === "1", undefined, options);
}

/** Opens a page and waits until React has hydrated it. */
export async function open(page: Page, path: string) {
  await page.goto(path);
  await hydrated(page);
}

/** Registers through the real form with the demo invitation code and lands on home. */
export async function register(page: Page, name = account(), password = "journey123") {
  await open(page, "/pages/user/register");
  await page.getByLabel(en_auth.account).fill(name);
  await page.getByLabel(en_auth.password, { exact: true }).fill(password);
  await page.getByLabel(en_auth.confirm_password).fill(password);
  await page.getByLabel(en_auth.invite_code).fill("WELCOME");
  await page.getByRole("button", { name: en_auth.register_submit }).click();
  await expect(page).toHaveURL(/\/$/);
  return { name, password };
}

export async function login(page: Page, name: string, password: string) {
  await hydrated(page);
  await page.getByLabel(en_auth.account).fill(name);
  await page.getByLabel(en_auth.password, { exact: true }).fill(password);
  await page.getByRole("button", { name: en_auth.login_submit }).click();
}

/**
 * axe-core itself, evaluated in the page and run there. (@axe-core/playwright's builder finishes
 * every scan in a fresh page of its own, which cost 0.4 to 0.8 s a page against 0.1 s for this:
 * the difference between a walk that fits in every CI run and one that does not.)
 */
export const AXE_SOURCE = readFileSync(new URL("../../node_modules/axe-core/axe.min.js", import.meta.url), "utf8");
export type AxeViolation = { id: string; impact: string | null; nodes: { target: string[] }[] };

/** The page's serious and critical findings. A context given AXE_SOURCE as an init script (the walk) has axe in every page already. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(() =>
    (window as unknown as { axe: { run(c: Document, o: object): Promise<{ violations: AxeViolation[] }> } }).axe
      .run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa"] }, resultTypes: ["violations"] })
      .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => ({ target: n.target.map(String) })) }))),
  );
}

/** What an authenticator app shows for `key` at `at_ms` (the test is the user's phone). */
export function appCode(key: string, at_ms = Date.now()): string {
  return new TOTP({ secret: Secret.fromBase32(key), algorithm: "SHA1", digits: 6, period: 30 }).generate({ timestamp: at_ms });
}

/** Near a step's end the code would change under the form: wait for a fresh step. */
export async function freshStep(page: Page) {
  const left_ms = 30_000 - (Date.now() % 30_000);
  if (left_ms < 8_000) await page.waitForTimeout(left_ms + 200);
}

/**
 * Each code works once (decision 068), and journeys (in parallel workers, in restarted ones) sign
 * the same demo operators in. A step is claimed by creating its file beside the test server's
 * state (scripts/serve-e2e.ts starts it empty): creation either succeeds for one caller or fails.
 */
const STEPS_DIR = `${e2eStateDir()}/operator-steps`;

function claim(account: DemoOperator, step: number): boolean {
  try {
    writeFileSync(`${STEPS_DIR}/${account}-${step}`, "", { flag: "wx" });
    return true;
  } catch {
    return false;
  }
}

/** What the demo operator's app shows, for a step no one in this run has used. */
export async function operatorCode(account: DemoOperator = "operator"): Promise<string> {
  mkdirSync(STEPS_DIR, { recursive: true });
  let step = currentStep();
  while (!claim(account, step)) step += 1;
  return codeForStep(DEMO_OPERATORS[account].totp_key, step);
}

/** The console's sign-in through the page: password, then a code from the operator's app (decision 117). */
export async function signInOperator(page: Page, account: DemoOperator = "operator") {
  const admin = words("en", "admin");
  await open(page, "/admin/login");
  await page.getByLabel(admin.account).fill(account);
  await page.getByLabel(admin.password, { exact: true }).fill(DEMO_OPERATORS[account].password);
  await page.getByRole("button", { name: admin.login_submit }).click();
  await expect(page.getByTestId("operator-code-prompt")).toBeVisible();
  await page.getByLabel(words("en", "common").code_input.label).fill(await operatorCode(account));
  await page.getByRole("button", { name: admin.two_factor.login_submit }).click();
  await expect(page).toHaveURL(/\/admin$/);
}

/** The console in its own desktop browser context, signed in as a demo operator. */
export async function operatorPage(browser: Browser, account: DemoOperator = "operator", size = { width: 1280, height: 800 }): Promise<Page> {
  const ctx = await browser.newContext({ viewport: size, locale: "en-US" });
  const page = await ctx.newPage();
  await signInOperator(page, account);
  return page;
}

/**
 * A money action whose confirmation is older than five minutes opens the console's code prompt
 * (decision 118): the operator types a fresh code, and the action goes through by itself.
 */
export async function answerStepUp(page: Page, account: DemoOperator = "operator") {
  const prompt = page.getByTestId("step-up-form");
  await expect(prompt).toBeVisible();
  await prompt.getByLabel(words("en", "common").code_input.label).fill(await operatorCode(account));
  await prompt.getByTestId("step-up-confirm").click();
  await expect(prompt).toHaveCount(0);
}

const apiSessions = new Map<DemoOperator, string>();

/**
 * A console API call as the demo operator, through one session per run (signed in with a code):
 * a session that ended is replaced, a confirmation older than five minutes is given again.
 */
export async function operatorApi(request: APIRequestContext, path: string, data: Record<string, unknown> = {}, account: DemoOperator = "operator") {
  for (let attempt = 0; ; attempt++) {
    let token = apiSessions.get(account);
    if (!token) {
      const { password } = DEMO_OPERATORS[account];
      const login = await (await request.post("/api/admin/login", { data: { account, password, code: await operatorCode(account) } })).json();
      expect(login.code, login.msg).toBe(1);
      token = login.data.token as string;
      apiSessions.set(account, token);
    }
    const res = await request.post(path, { headers: { token }, data });
    const answer = await res.json();
    if (attempt < 2 && res.status() === 401) apiSessions.delete(account);
    else if (attempt < 2 && answer.data?.error === "step_up_required") {
      const confirmed = await (await request.post("/api/admin/step_up", { headers: { token }, data: { code: await operatorCode(account) } })).json();
      expect(confirmed.code, confirmed.msg).toBe(1);
    } else return answer;
  }
}

/**
 * Funds a user through the API as a client would: their recharge with a screenshot, approved
 * by the demo operator, confirmed by the second when it waits for one (money.spec.ts walks
 * deposits through the pages).
 */
export async function fund(request: APIRequestContext, account: string, password: string, amount: string) {
  const login = await (await request.post("/api/user/login", { data: { account, password } })).json();
  const token = login.data.userinfo.token as string;
  const file = { name: "shot.png", mimeType: "image/png", buffer: readFileSync(new URL("../fixtures/uploads/png-rgb.png", import.meta.url)) };
  const upload = await (await request.post("/api/common/upload", { headers: { token }, multipart: { file } })).json();
  const channels = await (await request.post("/api/index/recharge_way")).json();
  const channel = channels.data.find((c: { chain: string }) => c.chain === "TRC20");
  const tx_hash = "0x" + Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
  const deposit = await (await request.post("/api/user/recharge", { headers: { token, "idempotency-key": `e2e-${tx_hash.slice(2, 18)}` }, data: { channel_id: channel.id, amount, tx_hash, image: upload.data.url } })).json();
  const verified = { amount, tx_ref: `e2e-${deposit.data.id}` };
  let approved = await operatorApi(request, `/api/admin/deposits/${deposit.data.id}/approve`, verified);
  expect(approved.code, approved.msg).toBe(1);
  // Past the threshold or a rolling solo total (decision 120), the second demo operator confirms.
  if (approved.data.status === "confirming") approved = await operatorApi(request, `/api/admin/deposits/${deposit.data.id}/approve`, verified, "auditor");
  expect(approved.data.status, approved.msg).toBe("approved");
  return token;
}

/** Signs out from the settings page (with its confirm), landing on the login page. */
export async function signOut(page: Page, lng = "en") {
  await open(page, "/pages/me/sub/setting");
  await page.getByRole("button", { name: words(lng, "me").logout }).click();
  await page.getByRole("button", { name: words(lng, "common").confirm }).click();
  await expect(page).toHaveURL(/\/pages\/user\/login$/);
}

/** Turns two-factor on from the security page; `password` is the login password it asks for (none: a wallet account without one). */
export async function enableTwoFactor(page: Page, lng: string, password?: string): Promise<string> {
  await open(page, "/pages/me/sub/security");
  await page.getByTestId("two-factor-start").click();
  const key = (await page.getByTestId("two-factor-key").textContent())!.trim();
  if (password !== undefined) await page.getByLabel(words(lng, "wallet").confirm.password, { exact: true }).fill(password);
  await freshStep(page);
  await page.getByLabel(words(lng, "common").code_input.label).fill(appCode(key));
  await page.getByTestId("two-factor-enable").click();
  await page.getByTestId("recovery-codes-done").click();
  await expect(page.getByTestId("two-factor-state")).toHaveText(words(lng, "me").security.state_on);
  return key;
}

/**
 * Records every toast the page shows (role="status"), from the next navigation on. A toast lasts
 * 2–3 s; on a loaded machine a poll of the screen can miss it, a record of what was said cannot.
 */
export async function recordToasts(page: Page) {
  await page.addInitScript(() => {
    const said: string[] = [];
    (window as unknown as { __toasts: string[] }).__toasts = said;
    const note = () => document.querySelectorAll('[role="status"]').forEach((el) => el.textContent && !said.includes(el.textContent) && said.push(el.textContent));
    new MutationObserver(note).observe(document, { subtree: true, childList: true, characterData: true });
  });
}

/** The toasts recorded since `recordToasts` (in order, each text once). */
export function toastsSaid(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __toasts?: string[] }).__toasts ?? []);
}

/**
 * Fills and submits profile completion on the page already open (`/pages/me/sub/improve-info`):
 * name, phone, `email`, an ID photo and a signature drawn with the mouse; it ends submitted.
 */
export async function submitProfileForm(page: Page, email: string) {
  const photo = new URL("../fixtures/uploads/png-rgb.png", import.meta.url).pathname;
  await page.getByTestId("profile-name").fill("Ann Lee");
  await page.getByTestId("profile-phone").fill("+44 20 7946 0958");
  await page.getByTestId("profile-email").fill(email);
  await page.getByTestId("profile-id-photo").getByTestId("upload-input").setInputFiles(photo);
  await expect(page.getByTestId("profile-id-photo").getByTestId("upload-preview")).toBeVisible();
  const box = (await page.getByTestId("profile-signature-pad").boundingBox())!;
  await page.mouse.move(box.x + 20, box.y + box.height / 2);
  await page.mouse.down();
  for (let i = 1; i <= 12; i++) await page.mouse.move(box.x + 20 + i * 20, box.y + box.height / 2 + (i % 2 ? -18 : 18), { steps: 3 });
  await page.mouse.up();
  await page.getByTestId("profile-submit").click();
  await expect(page.getByTestId("profile-status")).toHaveAttribute("data-status", "submitted");
}

/** Where keyboard focus is: inside the modal (`within`, a selector), on the page behind it, or nowhere (the browser's own controls). */
export type FocusPlace = "dialog" | "page" | "nowhere";

/**
 * Presses Tab `presses` times, then Shift+Tab as many, and says after each press where focus is.
 * A modal that holds the keyboard never answers "page"; press more times than it has controls.
 */
async function focusTrail(page: Page, within: string, presses: number): Promise<FocusPlace[]> {
  const trail: FocusPlace[] = [];
  for (const key of [...Array<string>(presses).fill("Tab"), ...Array<string>(presses).fill("Shift+Tab")]) {
    await page.keyboard.press(key);
    trail.push(
      await page.evaluate((selector) => {
        const at = document.activeElement;
        return at === null || at === document.body ? "nowhere" : at.closest(selector) ? "dialog" : "page";
      }, within),
    );
  }
  return trail;
}

/** A modal holds the keyboard: Tab and Shift+Tab, `presses` times each, stay inside `within` and never reach the page. */
export async function expectKeyboardHeld(page: Page, within: string, presses: number): Promise<void> {
  const trail = await focusTrail(page, within, presses);
  expect(trail).not.toContain("page");
  expect(trail).toContain("dialog");
}
