import { chromium, expect, test, type Page } from "@playwright/test";
import { hydrated, open, register, words } from "./helpers";

/**
 * The installable shell in Chromium at a phone's size: manifest and icons, the service worker
 * and what it keeps (never an API answer or a money page), the offline page, Chromium's own
 * installability verdict, the theme switch, the page transition, the old shell's paths.
 */
const shell = words("en", "shell");
const tabs = words("en", "common").tabs;

/** A link of the bottom tab bar (home has quick links with the same names). */
const tab = (page: Page, name: string) => page.getByRole("navigation", { name: "tabs" }).getByRole("link", { name });

/** Waits until the service worker is active and controls this page (it claims open pages). */
async function controlled(page: Page) {
  await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active?.state === "activated");
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
}

/** Every URL path in every cache the page's origin holds. */
function cachedPaths(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const paths: string[] = [];
    for (const name of await caches.keys()) for (const req of await (await caches.open(name)).keys()) paths.push(new URL(req.url).pathname);
    return paths;
  });
}

test("the manifest names the app, is standalone in #3c9cff, and its icons are PNGs of their stated size", async ({ page }) => {
  await open(page, "/pages/user/login");
  const href = await page.locator('link[rel="manifest"]').getAttribute("href");
  const res = await page.request.get(href!);
  expect(res.ok()).toBe(true);
  const manifest = await res.json();
  expect(manifest).toMatchObject({ name: "Proofline", short_name: "Proofline", start_url: "/", display: "standalone", theme_color: "#3c9cff" });
  const icons: { src: string; sizes: string; type: string; purpose: string }[] = manifest.icons;
  for (const [size, purpose] of [[192, "any"], [512, "any"], [512, "maskable"]] as const) {
    const icon = icons.find((i) => i.sizes === `${size}x${size}` && i.purpose === purpose);
    expect(icon, `${size} ${purpose}`).toMatchObject({ type: "image/png" });
    const file = await page.request.get(icon!.src);
    expect(file.headers()["content-type"]).toBe("image/png");
    const drawn = await page.evaluate(async (src) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      return [img.naturalWidth, img.naturalHeight];
    }, icon!.src);
    expect(drawn).toEqual([size, size]);
  }
});

test("the service worker controls the page; offline, a navigation shows the offline page; no API answer or money page is cached", async ({ page, context }) => {
  await register(page);
  await controlled(page);
  // While controlled: money pages as documents and as data requests, and API answers, all go by.
  await open(page, "/pages/me/sub/stored");
  await open(page, "/");
  await tab(page, tabs.accounts).click();
  await expect(page).toHaveURL(/\/pages\/me\/index$/);
  expect(await page.evaluate(() => fetch("/api/index/slides").then((r) => r.status))).toBe(200);

  await context.setOffline(true);
  await page.goto("/pages/me/sub/record");
  await expect(page.getByRole("heading", { name: shell.offline.title })).toBeVisible();
  await expect(page.getByText(shell.offline.body)).toBeVisible();
  await expect(page.getByRole("button", { name: shell.offline.retry })).toBeVisible();

  const paths = await cachedPaths(page);
  expect(paths).toContain("/offline.html");
  expect(paths.some((p) => p.startsWith("/build/"))).toBe(true);
  const forbidden = paths.filter((p) => p === "/" || p.startsWith("/api/") || p.startsWith("/pages/") || p.startsWith("/files/") || p.startsWith("/ws/") || p.endsWith(".data"));
  expect(forbidden).toEqual([]);

  // In the visitor's language: the app's stored choice (Remix's base64 JSON cookie) wins.
  const lng = encodeURIComponent(Buffer.from(JSON.stringify("ja")).toString("base64"));
  await context.addCookies([{ name: "lng", value: lng, domain: new URL(page.url()).hostname, path: "/" }]);
  await page.goto("/pages/invest/index");
  await expect(page.locator("html")).toHaveAttribute("lang", "ja");
  await expect(page.getByRole("heading", { name: words("ja", "shell").offline.title })).toBeVisible();

  // Back online, the offline page reloads itself into the real page.
  await context.setOffline(false);
  await expect(page.locator("html[data-offline-page]")).toHaveCount(0);
  await hydrated(page);
  await expect(page).toHaveURL(/\/pages\/invest\/index$/);
});

test("the build's files are kept for a year and never asked for again; other files are checked each time", async ({ page }) => {
  // public/_headers: every file under /build is named by its content, so a copy cannot go stale.
  const build: { url: string; cache: string | undefined }[] = [];
  page.on("response", (r) => {
    if (new URL(r.url()).pathname.startsWith("/build/")) build.push({ url: r.url(), cache: r.headers()["cache-control"] });
  });
  await open(page, "/pages/user/login");
  expect(build.map((b) => b.url).some((u) => u.endsWith(".js"))).toBe(true);
  expect(build.map((b) => b.url).some((u) => u.endsWith(".css"))).toBe(true);
  expect(build.filter((b) => b.cache !== "public, max-age=31536000, immutable")).toEqual([]);
  // Not named by content: the browser asks again each time.
  for (const path of ["/manifest.webmanifest", "/sw.js", "/favicon.svg"]) {
    const cache = (await page.request.get(path)).headers()["cache-control"] ?? "";
    expect(cache, path).not.toContain("immutable");
    expect(cache, path).toContain("max-age=0");
  }
});

test("Chromium reports the app installable: no installability errors", async ({ baseURL }, testInfo) => {
  // Chromium never offers installation in an incognito profile, and every Playwright context
  // is one: this check needs a real (persistent) profile.
  const context = await chromium.launchPersistentContext(testInfo.outputPath("profile"), {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    baseURL,
    viewport: { width: 390, height: 844 },
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await open(page, "/pages/user/login");
    await controlled(page);
    const cdp = await context.newCDPSession(page);
    await expect
      .poll(async () => (await cdp.send("Page.getInstallabilityErrors")).installabilityErrors.map((e) => e.errorId), { timeout: 20_000 })
      .toEqual([]);
  } finally {
    await context.close();
  }
});

test("the dark switch in settings works, persists, and 'system' follows the phone", async ({ page }) => {
  await register(page);
  await open(page, "/pages/me/sub/setting");
  const themes = page.getByRole("radiogroup", { name: shell.theme.title });
  const frame = () => page.evaluate(() => getComputedStyle(document.querySelector(".app-frame")!).backgroundColor);
  const light = await frame();
  await expect(themes.getByRole("radio", { name: shell.theme.system })).toHaveAttribute("aria-checked", "true");

  await themes.getByRole("radio", { name: shell.theme.dark }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  const dark = await frame();
  expect(dark).not.toBe(light);
  expect(dark).toBe("rgb(15, 18, 22)");

  await open(page, "/pages/money/index"); // a full load: the server paints it dark from the cookie
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  expect(await frame()).toBe(dark);

  await open(page, "/pages/me/sub/setting");
  await page.emulateMedia({ colorScheme: "dark" });
  await themes.getByRole("radio", { name: shell.theme.light }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  expect(await frame()).toBe(light); // the choice beats the phone's dark mode

  await themes.getByRole("radio", { name: shell.theme.system }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "system");
  expect(await frame()).toBe(dark);
  await page.emulateMedia({ colorScheme: "light" });
  expect(await frame()).toBe(light);
});

test("pages pop in (300 ms), and not under reduced motion", async ({ page }) => {
  await register(page);
  const animation = () => page.evaluate(() => getComputedStyle(document.querySelector(".pop-in .screen-body")!).animationName);
  const duration = () => page.evaluate(() => getComputedStyle(document.querySelector(".pop-in .screen-body")!).animationDuration);

  await tab(page, tabs.markets).click();
  await expect(page).toHaveURL(/\/pages\/invest\/index$/);
  await expect(page.getByTestId("page-transition")).toHaveClass(/pop-in/);
  expect(await animation()).toBe("pop-in");
  expect(await duration()).toBe("0.3s");

  await page.emulateMedia({ reducedMotion: "reduce" });
  await tab(page, tabs.accounts).click();
  await expect(page).toHaveURL(/\/pages\/me\/index$/);
  await expect(page.getByTestId("page-transition")).toHaveClass(/pop-in/);
  expect(await animation()).toBe("none");
});

test("a navigation slower than 200 ms shows the loading mask; one unfinished after 60 s shows the error view with retry", async ({ page }) => {
  await register(page);
  await page.clock.install();
  // The markets page's data request never answers.
  await page.route("**/pages/invest/index.data*", () => undefined);
  await tab(page, tabs.markets).click();
  await expect(page.getByTestId("loading-mask")).toHaveCount(0);
  await page.clock.runFor(250);
  await expect(page.getByTestId("loading-mask")).toBeVisible();
  await expect(page.getByTestId("slow-navigation")).toHaveCount(0);
  await page.clock.runFor(60_000);
  const view = page.getByTestId("slow-navigation");
  await expect(view.getByRole("heading", { name: shell.slow.title })).toBeVisible();
  // Retry is a full page load (not the stuck data request), so it gets through.
  await page.clock.resume();
  await view.getByRole("button", { name: shell.slow.retry }).click();
  await expect(page).toHaveURL(/\/pages\/invest\/index$/);
  await hydrated(page);
  await expect(page.getByTestId("slow-navigation")).toHaveCount(0);
});

test("the old shell's paths land where decided", async ({ page }) => {
  await register(page);
  for (const [path, target] of [
    ["/pages/wallet/index", "/"],
    ["/pages/index/template", "/"],
    ["/pages/rob/index", "/pages/money/index"],
    ["/pages/team/index", "/pages/me/index"],
    ["/choose-location", "/"],
    ["/open-location", "/"],
  ]) {
    await open(page, path);
    expect(new URL(page.url()).pathname, path).toBe(target);
  }
});

test("the platform flag is stored as the old app kept it: 'i' on iOS, 'a' on Android, nothing elsewhere", async ({ browser }) => {
  const agents = [
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1", "i"],
    ["Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36", "a"],
    ["Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36", null],
  ] as const;
  for (const [userAgent, flag] of agents) {
    const context = await browser.newContext({ userAgent, hasTouch: flag !== null });
    const page = await context.newPage();
    await open(page, "/pages/user/login");
    expect(await page.evaluate(() => localStorage.getItem("platform")), userAgent).toBe(flag);
    await context.close();
  }
});
