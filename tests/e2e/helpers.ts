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
