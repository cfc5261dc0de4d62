/**
 * The route walk: every page in app/routes.js (new pages join by themselves), logged out, as the
 * demo user and as an operator, at 390x844, in all ten languages. Each page must show no console
 * error, no untranslated key, no English sentence on a non-English page, no text running out of
 * its box, and no serious or critical axe finding. A screenshot per page and language goes to
 * tests/e2e/artifacts/walk (ignored by git; none under CI, which keeps only the printed output: keepShot).
 */
import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { appRoutes } from "../../app/routes.js";
import { LOCALE_KEYS, type LocaleKey } from "../../locales/languages";
import { AXE_SOURCE, axeViolations, hydrated, keepShot, open, operatorCode } from "./helpers";

type Who = "visitor" | "user" | "operator";

/** Every URL pattern in app/routes.js, in the order it lists them. */
function routePatterns(): string[] {
  const out: string[] = [];
  const prefix: string[] = [];
  const route = (path: string | undefined, file: string, optsOrChildren?: unknown, children?: () => void) => {
    const kids = typeof optsOrChildren === "function" ? (optsOrChildren as () => void) : children;
    const full = "/" + [...prefix, path].filter(Boolean).join("/");
    // Pages only: resource routes (no default export) answer data, not a screen.
    if (/export default/.test(readFileSync(new URL(`../../app/${file}`, import.meta.url), "utf8"))) out.push(full);
    if (kids) {
      prefix.push(path ?? "");
      kids();
      prefix.pop();
    }
  };
  // A stand-in for Remix's defineRoutes that records each path instead of building a manifest.
  appRoutes(((cb: (r: typeof route) => void) => {
    cb(route);
    return {};
  }) as unknown as Parameters<typeof appRoutes>[0]);
  return [...new Set(out)].filter((p) => p !== "/admin/login");
}

/** The English strings a page could show and their key, from every namespace, flattened. */
function flatten(obj: unknown, prefix = "", out = new Map<string, string>()): Map<string, string> {
  if (typeof obj === "string") out.set(prefix, obj);
  else if (obj && typeof obj === "object") for (const [k, v] of Object.entries(obj)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  return out;
}
function localeStrings(lng: string): Map<string, string> {
  const all = new Map<string, string>();
  const dir = new URL(`../../locales/${lng}/`, import.meta.url);
  for (const f of readdirSync(dir)) {
    if (!f.endsWith(".json")) continue;
    const ns = f.slice(0, -5);
    for (const [k, v] of flatten(JSON.parse(readFileSync(new URL(f, dir), "utf8")))) all.set(`${ns}:${k}`, v);
  }
  return all;
}
const EN = localeStrings("en");
/** Keys as they would leak into a page: "ns:a.b" or "a.b" (two or more dotted parts). */
const LEAKABLE_KEYS = new Set<string>();
for (const k of EN.keys()) {
  LEAKABLE_KEYS.add(k);
  const bare = k.slice(k.indexOf(":") + 1);
  if (bare.includes(".")) LEAKABLE_KEYS.add(bare);
}

/** English sentences whose translation differs: seeing one of these on a `lng` page means a missing translation. */
function englishOnly(lng: LocaleKey): Set<string> {
  const target = localeStrings(lng);
  const out = new Set<string>();
  for (const [k, en] of EN) {
    if (en.includes("{{") || en.includes("<") || en.length < 8 || !/[a-z]{3,} [a-z]{2,}/i.test(en)) continue;
    if (target.get(k) !== en) out.add(en.trim());
  }
  return out;
}

/**
 * Real ids for the pages that need one. The demo user places one small order through the API
 * (as the trade page would), so the order detail shows a real order.
 */
async function ids(page: Page, who: Who): Promise<Record<string, string>> {
  const api = page.request;
  const products = (await (await api.post("/api/index/product_list", { data: {} })).json()).data as { id: number }[];
  const product = products[0];
  const known: Record<string, string> = { product: String(product?.id ?? 1) };
  if (who !== "user" || !product) return known;
  const login = (await (await api.post("/api/user/login", { data: { account: "demo", password: "demo12345" } })).json()).data;
  const headers = { token: login.userinfo.token as string };
  const quote = (await (await api.post("/api/index/product", { data: { id: product.id } })).json()).data;
  await api.post("/api/order/addorder", { headers, data: { product_id: product.id, direction: "up", amount: "10", seconds: 60, quote_price: quote.price, client_order_id: `walk-${Date.now()}` } });
  const hold = (await (await api.post("/api/order/hold", { headers, data: {} })).json()).data;
  known.order = String(hold?.items?.[0]?.id ?? "");
  return known;
}

function concrete(pattern: string, known: Record<string, string>): string {
  if (pattern === "/pages/money/order" && known.order) return `${pattern}?id=${known.order}`;
  if (pattern === "/pages/invest/product") return `${pattern}?id=${known.product}`;
  if (pattern === "/admin/products/:id") return `/admin/products/${known.product}`;
  if (pattern === "/admin/users/:id") return `/admin/users/${known.user ?? 1}`;
  return pattern;
}

const base64Json = (v: string) => Buffer.from(JSON.stringify(v)).toString("base64");

async function signIn(context: BrowserContext, page: Page, who: Who) {
  if (who === "visitor") return;
  if (who === "user") {
    await open(page, "/pages/user/login");
    await page.locator("input[name=account]").fill("demo");
    await page.locator("input[name=password]").fill("demo12345");
    await page.locator("form button[type=submit]").first().click();
    await expect(page).toHaveURL(/\/$/);
  } else {
    await open(page, "/admin/login");
    await page.locator("input[name=account]").fill("operator");
    await page.locator("input[name=password]").fill("operator12345");
    await page.locator("form button[type=submit]").first().click();
    // Two walkers share the demo operator's authenticator: a code is accepted only after the last
    // one used (decision 068), so a walker whose code the other overtook takes the next one.
    for (let attempt = 0; attempt < 4; attempt++) {
      await page.locator("input[name=code]").fill(await operatorCode());
      await page.locator("form button[type=submit]").first().click();
      if (await page.waitForURL(/\/admin$/, { timeout: 5_000 }).then(() => true, () => false)) break;
    }
    await expect(page).toHaveURL(/\/admin$/);
  }
}

type Finding = { url: string; kind: string; detail: string };

/** Console errors and page errors of one page, collected from before its navigation starts. */
function listen(page: Page) {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  return { take: () => errors.splice(0) };
}

/** The page as it stands (already navigated to `url`): words, layout and accessibility. */
async function checkPage(page: Page, lng: LocaleKey, url: string, englishSet: Set<string>, shot: string, errors: { take(): string[] }): Promise<Finding[]> {
  const findings: Finding[] = [];
  const t0 = Date.now();
  const hydratedInTime = await hydrated(page, { timeout: 20_000 }).then(() => true, () => false);
  if (!hydratedInTime) findings.push({ url, kind: "console", detail: "the page never hydrated" });
  // Loaders have answered by now; let sockets and effects draw their first frame, and let the
  // page's entrance animation end: mid-animation a page is scaled and faded, which reads as
  // overflow and low contrast on a machine slow enough to measure it then.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await page.evaluate(() => {
    const finite = document.getAnimations().filter((a) => a.effect?.getComputedTiming().iterations !== Infinity);
    return Promise.race([Promise.all(finite.map((a) => a.finished.catch(() => undefined))), new Promise((done) => setTimeout(done, 5_000))]);
  });
  const seen = await page.evaluate(() => {
    const texts: string[] = [];
    const overflow: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const vw = window.innerWidth;
    const scrollsX = (el: Element | null): boolean => {
      for (let e = el; e && e !== document.body; e = e.parentElement) {
        const o = getComputedStyle(e).overflowX;
        if (o === "auto" || o === "scroll") return true;
      }
      return false;
    };
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const t = n.textContent?.trim();
      const el = n.parentElement;
      if (!t || !el) continue;
      const style = getComputedStyle(el);
      if (style.visibility === "hidden" || style.display === "none" || el.closest("script,style,noscript,[hidden]")) continue;
      const rect = el.getBoundingClientRect();
      if (rect.width === 0 && rect.height === 0) continue;
      // Words for screen readers only (clipped to a pixel on purpose) are read, not seen.
      const srOnly = rect.width <= 1 || rect.height <= 1 || style.clip !== "auto" || style.clipPath !== "none";
      texts.push(t);
      if (srOnly || scrollsX(el)) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      const r = range.getBoundingClientRect();
      const clipped = (style.overflow === "hidden" || style.overflowX === "hidden") && style.textOverflow !== "ellipsis" && el.scrollWidth > el.clientWidth + 1;
      if (r.right > vw + 1 || r.left < -1 || clipped) overflow.push(`${el.tagName.toLowerCase()}.${el.className}: "${t.slice(0, 40)}"`);
    }
    for (const el of document.querySelectorAll("[placeholder],[aria-label],[title]")) {
      for (const a of ["placeholder", "aria-label", "title"]) {
        const v = el.getAttribute(a)?.trim();
        if (v) texts.push(v);
      }
    }
    return { texts, overflow, pageWidth: document.documentElement.scrollWidth, vw };
  });
  for (const e of errors.take()) findings.push({ url, kind: "console", detail: e.slice(0, 200) });
  for (const t of seen.texts) {
    if (LEAKABLE_KEYS.has(t)) findings.push({ url, kind: "key", detail: t });
    else if (lng !== "en" && englishSet.has(t)) findings.push({ url, kind: "english", detail: t });
  }
  for (const o of seen.overflow) findings.push({ url, kind: "overflow", detail: o });
  if (seen.pageWidth > seen.vw + 1) findings.push({ url, kind: "overflow", detail: `page is ${seen.pageWidth}px wide` });
  const t1 = Date.now();
  for (const v of await axeViolations(page)) {
    if (v.impact === "serious" || v.impact === "critical") findings.push({ url, kind: `axe ${v.impact}`, detail: `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}` });
  }
  const t2 = Date.now();
  await keepShot(page, { path: shot });
  if (process.env.WALK_TIMING) console.log(`  load+checks ${t1 - t0} ms, axe ${t2 - t1} ms, screenshot ${Date.now() - t2} ms`);
  return findings;
}

const PATTERNS = routePatterns();
// Each language walks on its own browser contexts and signs in on its own: languages can run side by side.
test.describe.configure({ mode: "parallel" });
const ONLY = process.env.WALK_LANGS?.split(",") as LocaleKey[] | undefined;

for (const lng of ONLY ?? LOCALE_KEYS) {
  test(`every page in ${lng}: words, layout, accessibility`, async ({ browser }) => {
    // A language walks about 90 pages; a loaded CI machine has taken over ten minutes for one.
    test.setTimeout(1_200_000);
    const english = englishOnly(lng);
    const base = test.info().project.use.baseURL!;
    const findings: Finding[] = [];
    const dir = `tests/e2e/artifacts/walk/${lng}`;
    mkdirSync(dir, { recursive: true });
    for (const who of ["visitor", "user", "operator"] as Who[]) {
      // The service worker is the shell journey's subject (tests/e2e/shell.spec.ts); here it would
      // only make each fresh context fill its cache, about a third of the walk's time.
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true, serviceWorkers: "block" });
      // axe-core in every page of the context from the start: its 550 KB cross to the browser once, not once a page.
      await context.addInitScript({ content: AXE_SOURCE });
      await context.addCookies([{ name: "lng", value: base64Json(lng), url: base }]);
      const page = await context.newPage();
      const errors = listen(page);
      await signIn(context, page, who);
      const known = await ids(page, who);
      const landed = new Set<string>();
      for (const pattern of PATTERNS) {
        const isConsole = pattern.startsWith("/admin");
        if ((who === "user" && isConsole) || (who === "operator" && !isConsole)) continue;
        const url = concrete(pattern, known);
        const t0 = Date.now();
        // Logged out, most pages answer with a redirect to the same sign-in page: check each landing
        // page once. The server's answer alone says where a page sends the visitor, so a redirect to a
        // page already checked is read without the browser loading that page again: about 57 of a
        // language's 65 for the visitor, a quarter of the walk's browser CPU.
        if (who === "visitor") {
          const answer = await page.request.get(url, { maxRedirects: 0 });
          const location = answer.status() >= 300 && answer.status() < 400 ? answer.headers().location : undefined;
          if (location && landed.has(new URL(location, base).pathname)) continue;
        }
        errors.take();
        await page.goto(url);
        // The same for a redirect the server's first answer did not show (a page signed in users leave).
        const final = new URL(page.url()).pathname;
        if (landed.has(final) && final !== new URL(url, "http://x").pathname) continue;
        landed.add(final);
        const name = `${who}${url.replace(/[^a-z0-9]+/gi, "_")}`.slice(0, 100);
        findings.push(...(await checkPage(page, lng, url, english, `${dir}/${name}.png`, errors)));
        if (process.env.WALK_TIMING) console.log(`${lng} ${who} ${url} ${Date.now() - t0} ms`);
      }
      await context.close();
    }
    expect(findings, findings.map((f) => `${f.kind} ${f.url}: ${f.detail}`).join("\n")).toEqual([]);
  });
}
