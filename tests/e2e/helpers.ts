import { expect, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";

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

/** Opens a page and waits until React has hydrated it (clicks before that are plain HTML). */
export async function open(page: Page, path: string) {
  await page.goto(path);
  await page.waitForFunction(() => document.documentElement.dataset.hydrated === "1");
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
  await page.waitForFunction(() => document.documentElement.dataset.hydrated === "1");
  await page.getByLabel(en_auth.account).fill(name);
  await page.getByLabel(en_auth.password, { exact: true }).fill(password);
  await page.getByRole("button", { name: en_auth.login_submit }).click();
}

/**
 * axe-core itself, evaluated in the page and run there. (@axe-core/playwright's builder finishes
 * every scan in a fresh page of its own, which cost 0.4 to 0.8 s a page against 0.1 s for this:
 * the difference between a walk that fits in every CI run and one that does not.)
 */
const AXE_SOURCE = readFileSync(new URL("../../node_modules/axe-core/axe.min.js", import.meta.url), "utf8");
export type AxeViolation = { id: string; impact: string | null; nodes: { target: string[] }[] };

export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(() =>
    (window as unknown as { axe: { run(c: Document, o: object): Promise<{ violations: AxeViolation[] }> } }).axe
      .run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa"] }, resultTypes: ["violations"] })
      .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => ({ target: n.target.map(String) })) }))),
  );
}
