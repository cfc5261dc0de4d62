import { defineConfig } from "@playwright/test";

/**
 * Journeys in Debian's Chromium (no browser download) at a 390×844 phone viewport, against
 * the real Worker with fresh local D1/R2/DO state (scripts/serve-e2e.ts).
 */
const port = process.env.E2E_PORT ?? "8799";
export default defineConfig({
  testDir: "tests/e2e",
  // The route walk (every page × ten languages × three identities) runs on its own: `npm run walk`.
  testIgnore: process.env.WALK === "1" ? [] : ["**/walk.spec.ts"],
  timeout: 60_000,
  // Generous: a sign-in hashes a password and a loaded CI machine is slow; a passing check returns at once.
  expect: { timeout: 20_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  // The walk reports on its own file: `npm test` runs it as a second invocation (scripts/test.ts).
  // Its own output folder too, so the journeys' failure screenshots outlive the walk.
  // E2E_OUTPUT and E2E_REPORT: `npm test` runs the journeys and the walk in halves side by side, each half
  // with its own folder and report (scripts/test.ts).
  outputDir: process.env.E2E_OUTPUT ?? (process.env.WALK === "1" ? "test-results/walk" : "test-results/journeys"),
  reporter: [["list"], ["json", { outputFile: process.env.E2E_REPORT ?? (process.env.WALK === "1" ? "tests/.reports/walk.json" : "tests/.reports/playwright.json") }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 390, height: 844 },
    // One device pixel per CSS pixel: the layout is the phone's either way, and a 2x raster costs
    // four times the pixels on every frame of about 1,400 page loads (decision 146).
    deviceScaleFactor: 1,
    isMobile: true,
    hasTouch: true,
    locale: "en-US",
    // No trace: recording one costs every journey about a third of its browser's CPU (decision 151),
    // and CI keeps only the printed output. To debug a journey: `npx playwright test FILE --trace on`.
    trace: "off",
    screenshot: "only-on-failure",
    launchOptions: {
      // The headless shell when there is one (decision 146); the installability check launches the whole Chromium itself.
      executablePath: process.env.E2E_BROWSER_PATH ?? process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--js-flags=--no-maglev", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  webServer: {
    command: "node_modules/.bin/tsx scripts/serve-e2e.ts",
    url: `http://127.0.0.1:${port}/api/health`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: "ignore",
    stderr: "pipe",
  },
});
