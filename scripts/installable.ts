/**
 * `npm run installable`: starts the app exactly as `npm start` does (its own port, the same
 * persisted local state), opens it in Debian's Chromium with a real profile (Chromium never
 * offers installation in an incognito one) and asks Chromium for its installability verdict.
 * Exit 0 when Chromium lists no installability error. `npm test` runs it after the journeys.
 */
import { chromium } from "@playwright/test";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { quietEnv } from "./lib";

const port = process.env.INSTALLABLE_PORT ?? "8786";
const origin = `http://127.0.0.1:${port}`;
// Its own process group, so stopping it stops wrangler and workerd too.
const server = spawn("npm", ["start"], { env: { ...quietEnv, PORT: port }, stdio: ["ignore", "pipe", "pipe"], detached: true });
// The server's words are shown only when it fails to come up.
let serverLog = "";
const keep = (chunk: Buffer) => (serverLog = (serverLog + chunk.toString()).slice(-8000));
server.stdout!.on("data", keep);
server.stderr!.on("data", keep);
const stop = () => {
  try {
    process.kill(-server.pid!, "SIGTERM");
  } catch {
    // already gone
  }
};

async function healthy(deadline_ms: number): Promise<boolean> {
  while (Date.now() < deadline_ms) {
    if (server.exitCode !== null) return false;
    const ok = await fetch(`${origin}/api/health`).then((r) => r.ok, () => false);
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

async function installabilityErrors(): Promise<string[]> {
  const profile = mkdtempSync(join(tmpdir(), "proofline-installable-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport: { width: 390, height: 844 },
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${origin}/pages/user/login`);
    // The verdict needs the service worker in control of the page.
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.reload();
    const cdp = await context.newCDPSession(page);
    let errors: string[] = ["(not asked)"];
    for (const until = Date.now() + 20_000; Date.now() < until; ) {
      errors = (await cdp.send("Page.getInstallabilityErrors")).installabilityErrors.map((e) => e.errorId);
      if (errors.length === 0) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const manifest = await cdp.send("Page.getAppManifest");
    console.log(`manifest ${manifest.url}: ${manifest.errors.length} manifest errors`);
    return [...errors, ...manifest.errors.map((e) => `manifest: ${e.message}`)];
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

let code = 1;
try {
  if (!(await healthy(Date.now() + 180_000))) console.error(`installable: npm start did not answer ${origin}/api/health\n${serverLog}`);
  else {
    const errors = await installabilityErrors();
    console.log(errors.length === 0 ? `installable: Chromium reports ${origin} installable (no installability errors)` : `installable: NOT installable: ${errors.join(", ")}`);
    code = errors.length === 0 ? 0 : 1;
  }
} finally {
  stop();
}
process.exit(code);
