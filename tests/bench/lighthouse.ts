/**
 * Lighthouse, mobile, with Debian's Chromium, against the app served as `npm start` serves it:
 * home and trade signed in as the demo user, markets and login signed out. Targets:
 * performance >= 95, accessibility 100, best practices 100. The floor is the same run on the
 * app's static offline page (public/, no loader, no API): what this stack scores at its least.
 */
import lighthouse from "lighthouse";
import * as chromeLauncher from "chrome-launcher";
import { userCookie } from "../../worker/session-cookie";
import type { GroupResult, Server } from "./lib";

const TARGETS = { performance: 95, accessibility: 100, "best-practices": 100 } as const;
type Category = keyof typeof TARGETS;

export async function benchLighthouse(server: Server): Promise<GroupResult> {
  const login = await fetch(`${server.baseUrl}/api/user/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ account: "demo", password: "demo12345" }) });
  const token = ((await login.json()) as { data: { userinfo: { token: string } } }).data.userinfo.token;
  const cookie = (await userCookie.serialize(token)).split(";")[0];
  const pages: { name: string; path: string; signedIn: boolean }[] = [
    { name: "floor: offline page", path: "/offline.html", signedIn: false },
    { name: "home (signed in)", path: "/", signedIn: true },
    { name: "trade (signed in)", path: "/pages/money/index", signedIn: true },
    { name: "markets", path: "/pages/invest/index", signedIn: false },
    { name: "login", path: "/pages/user/login", signedIn: false },
  ];
  const chrome = await chromeLauncher.launch({ chromePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
  const verdicts: string[] = [];
  let missed = 0;
  try {
    for (const p of pages) {
      const result = await lighthouse(`${server.baseUrl}${p.path}`, {
        port: chrome.port,
        output: "json",
        logLevel: "error",
        formFactor: "mobile",
        onlyCategories: Object.keys(TARGETS),
        extraHeaders: p.signedIn ? { cookie } : undefined,
      });
      const lhr = result!.lhr;
      const scores = Object.fromEntries(Object.keys(TARGETS).map((c) => [c, Math.round((lhr.categories[c]?.score ?? 0) * 100)])) as Record<Category, number>;
      const failing = lhr.categories.accessibility?.auditRefs.filter((a) => a.weight > 0 && (lhr.audits[a.id]?.score ?? 1) < 1).map((a) => a.id) ?? [];
      const floor = p.name.startsWith("floor");
      const met = (Object.keys(TARGETS) as Category[]).every((c) => scores[c] >= TARGETS[c]);
      if (!floor && !met) missed += 1;
      verdicts.push(
        `${p.name.padEnd(20)} performance ${scores.performance}, accessibility ${scores.accessibility}, best practices ${scores["best-practices"]}` +
          `${floor ? "" : met ? "  (targets met)" : "  (TARGET MISSED)"}` +
          `${failing.length ? `  accessibility findings: ${failing.join(", ")}` : ""}`,
      );
    }
  } finally {
    await chrome.kill();
  }
  verdicts.push(`targets: performance >= ${TARGETS.performance}, accessibility ${TARGETS.accessibility}, best practices ${TARGETS["best-practices"]}; ${missed ? `${missed} page(s) missed` : "every page met them"}`);
  return { rows: [], verdicts };
}
