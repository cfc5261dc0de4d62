/**
 * `npm test`: the whole suite. Finds (or, as root with apt, installs) Debian's Chromium,
 * builds, runs vitest (unit + workerd API) and Playwright, and ends with one summary line.
 */
import { execSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { bin, quietEnv, run } from "./lib";

function findChromium(): string | null {
  for (const p of [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"]) if (p && existsSync(p)) return p;
  return null;
}

let chromium = findChromium();
if (!chromium && process.getuid?.() === 0 && existsSync("/usr/bin/apt-get")) {
  console.log("Chromium not found: installing Debian's chromium with apt-get…");
  execSync("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium", { stdio: "inherit" });
  chromium = findChromium();
}
if (!chromium) {
  console.error(
    "Missing: Chromium for the Playwright journeys.\n" +
      "Install Debian's package (sudo apt-get install chromium) or set CHROMIUM_PATH to a Chromium binary, then run npm test again.",
  );
  process.exit(1);
}

rmSync("tests/.reports", { recursive: true, force: true });
mkdirSync("tests/.reports", { recursive: true });
await run(bin("remix"), ["build"]);

const failures: string[] = [];
try {
  await run(bin("vitest"), ["run", "--reporter=default", "--reporter=json", "--outputFile=tests/.reports/vitest.json"]);
} catch {
  failures.push("vitest");
}
try {
  await run(bin("playwright"), ["test"], { env: { ...quietEnv, CHROMIUM_PATH: chromium, PROOFLINE_BUILT: "1" } });
} catch {
  failures.push("playwright");
}

let passed = 0;
let failed = 0;
if (existsSync("tests/.reports/vitest.json")) {
  const v = JSON.parse(readFileSync("tests/.reports/vitest.json", "utf8"));
  passed += v.numPassedTests;
  failed += v.numFailedTests;
}
if (existsSync("tests/.reports/playwright.json")) {
  const p = JSON.parse(readFileSync("tests/.reports/playwright.json", "utf8"));
  passed += p.stats.expected;
  failed += p.stats.unexpected + p.stats.flaky;
}
if (failures.length && failed === 0) failed = 1; // a runner that crashed before reporting still fails
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failures.length || failed ? 1 : 0);
