/**
 * `npm test`: the whole suite. Finds (or, as root with apt, installs) Debian's Chromium and its headless shell,
 * builds, runs vitest (unit + workerd API, the route and socket fuzzers, the access matrix), the
 * Playwright journeys, the route walk, the installability check against `npm start`, the crash
 * harness's short tier and the backup and restore drill, and ends with one summary line. Everything the children print is also
 * kept in tests/.reports/output.log, which is then searched for the secrets the run used
 * (scripts/run-secrets.ts, decision 129): one found fails the run.
 */
import { execSync, spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync } from "node:fs";
import { bin, buildApp, BUNDLE_ENV, prepare, quietEnv, STATE_ROOT_ENV, stateDir, TEMPLATE_STATE_ENV } from "./lib";
import { bundleWorker } from "./workerd-serve";
import { LOCALE_KEYS } from "../locales/languages";
import { describeHits, scanText, type SecretHit } from "./run-secrets";
import { projectArgs, VITEST_STEPS, type VitestStep } from "./vitest-steps";

const firstOf = (paths: (string | undefined)[]) => paths.find((p) => p && existsSync(p)) ?? null;
/** Debian's Chromium: the installability checks need the whole browser. */
const findChromium = () => firstOf([process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"]);
/**
 * Debian's old headless shell, the same Chromium without the browser's UI layers: the journeys and
 * the walk load about 1,400 pages, each about 30 % less of the machine's CPU in it (decision 146).
 */
const findShell = () => firstOf([process.env.E2E_BROWSER_PATH, "/usr/bin/chromium-headless-shell"]);

let chromium = findChromium();
let shell = findShell();
if ((!chromium || !shell) && process.getuid?.() === 0 && existsSync("/usr/bin/apt-get")) {
  console.log("Chromium not found: installing Debian's chromium and chromium-headless-shell with apt-get…");
  execSync("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-headless-shell", { stdio: "inherit" });
  chromium = findChromium();
  shell = findShell();
}
if (!chromium || !shell) {
  console.error(
    "Missing: Chromium for the Playwright journeys.\n" +
      "Install Debian's packages (sudo apt-get install chromium chromium-headless-shell) or set CHROMIUM_PATH and E2E_BROWSER_PATH, then run npm test again.",
  );
  process.exit(1);
}

rmSync("tests/.reports", { recursive: true, force: true });
mkdirSync("tests/.reports", { recursive: true });
const OUTPUT_LOG = "tests/.reports/output.log";
const output = createWriteStream(OUTPUT_LOG);

/**
 * Runs a command; its output goes to OUTPUT_LOG and to this terminal, each line under the step's
 * name (two lanes print at once). Resolves true on a zero exit, false otherwise.
 */
function run(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<boolean> {
  const started_ms = Date.now();
  const last: string[] = (tails[name] = []);
  console.log(`[${name}] started`);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], env });
    for (const stream of [child.stdout, child.stderr]) {
      let rest = "";
      // Decoded by the stream, so a character split between two chunks (Thai, Japanese) stays whole.
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        output.write(chunk);
        const lines = (rest + chunk).split("\n");
        rest = lines.pop() ?? "";
        for (const line of lines) process.stdout.write(`[${name}] ${line}\n`);
        last.push(...lines.filter((l) => l.trim()));
        last.splice(0, Math.max(0, last.length - TAIL_LINES));
      });
      stream.on("end", () => rest && process.stdout.write(`[${name}] ${rest}\n`));
    }
    child.on("error", () => resolve(false));
    child.on("close", (code) => {
      const s = ((Date.now() - started_ms) / 1000).toFixed(0);
      timings.push(`${name} ${s} s`);
      console.log(`[${name}] ended with ${code} after ${s} s`);
      resolve(code === 0);
    });
  });
}
const timings: string[] = [];
/** Each step's last printed lines: a failed script step shows them next to its name at the end (CI keeps only the tail). */
const tails: Record<string, string[]> = {};
const TAIL_LINES = 6;
const run_started_ms = Date.now();

/**
 * The run's local states (every server's D1, R2 and objects, vitest's workerd storage, the
 * browsers' profiles) on the RAM disk when there is room (decision 158): SQLite's journal writes
 * to a disk cost the run CPU in the kernel and waits, and none of it outlives the run.
 */
const RAM_DISK = "/dev/shm";
const RAM_NEEDED_BYTES = 4 * 1024 ** 3;
/** A fresh folder of this run's own on the RAM disk (mkdtemp: a new name, only this user's), or null. */
function ramRoot(): string | null {
  try {
    const fs = statfsSync(RAM_DISK);
    return fs.bavail * fs.bsize < RAM_NEEDED_BYTES ? null : mkdtempSync(`${RAM_DISK}/proofline-test-`);
  } catch {
    return null;
  }
}
const ram = ramRoot();
/** What every step and this process see: the states' root and the temporary folder on the RAM disk. */
const ramEnv: Record<string, string> = ram ? { [STATE_ROOT_ENV]: `${ram}/state`, TMPDIR: `${ram}/tmp` } : {};
Object.assign(process.env, ramEnv);
if (ram) {
  mkdirSync(`${ram}/tmp`);
  process.on("exit", () => rmSync(ram, { recursive: true, force: true }));
}
console.log(`local states: ${ram ? `${ram} (RAM disk)` : ".wrangler/ (no RAM disk with 4 GiB free)"}`);

// No step builds again (the deploy dry run uses this build, never one of its own). The bundle and
// the template state join `env` once they are made, before the lanes start.
const env: NodeJS.ProcessEnv = { ...quietEnv, ...ramEnv, PROOFLINE_BUILT: "1", CHROMIUM_PATH: chromium, E2E_BROWSER_PATH: shell };
const failures: string[] = [];
const step = async (name: string, cmd: string, args: string[], extra: Record<string, string> = {}) => {
  if (!(await run(name, cmd, args, { ...env, ...extra }))) failures.push(name);
};
/** Vitest's reports, one a step; `npm test` counts them all. */
const vitestReport = (name: VitestStep) => `tests/.reports/vitest-${name}.json`;
const VITEST_REPORTS = (Object.keys(VITEST_STEPS) as VitestStep[]).map(vitestReport);
const vitestStep = (name: VitestStep) => step(name, bin("vitest"), ["run", ...projectArgs(name), "--reporter=default", "--reporter=json", `--outputFile=${vitestReport(name)}`]);

// Beside the build and the lanes (decision 163): the unit tests need no build, so they run while it
// is made, on the cores its single-threaded parts leave idle; the deploy's dry run (its typecheck
// about 40 CPU-s) starts once the pages are built.
const built = buildApp();
const beside = (async () => {
  await vitestStep("unit");
  await built;
  await vitestStep("deploy");
})();
await built;
// Every server of the run (the journeys', the walk's, the crash harness's, the drill's, the
// installability check's, the integration tests') starts from one bundle and a copy of one
// migrated and seeded state, made here once (decision 152).
const RUN_DIR = stateDir("test-run");
rmSync(RUN_DIR, { recursive: true, force: true });
// Made from scratch: a variable left in the shell must not make the template a copy of itself.
delete process.env[TEMPLATE_STATE_ENV];
const [bundle] = await Promise.all([bundleWorker(`${RUN_DIR}/bundle`), prepare(`${RUN_DIR}/template`, { build: false })]);
Object.assign(env, { [BUNDLE_ENV]: bundle, [TEMPLATE_STATE_ENV]: `${RUN_DIR}/template` });
timings.push(`build ${((Date.now() - run_started_ms) / 1000).toFixed(0)} s`);

// Three lanes side by side (decisions 146 and 151). Measured in a clean-clone run with two lanes,
// the journeys (928 s) spent about a quarter of their time waiting (settlements, the cron's
// minute, the operators' code steps) while both cores had work, so the journeys and the walk run
// in halves, each on a server of its own, and the lanes are about equally long (decision 162, in
// a clean-clone run's seconds, decision 163): vitest 393, the walk's first six languages (188)
// and the drill (80); half the journeys (465) and the crash harness (165); the other half of the
// journeys (526), the walk's other four languages (118) and the installability check (7). The
// unit tests and the deploy's dry run go beside them (above).
// Ports and state (under stateDir): vitest's servers 8794-8798; the journeys 8799 on e2e and 8788
// on e2e-2; the walk 8789 on e2e-walk and 8791 on e2e-walk-2; the crash harness 8790; the drill
// 8773/8776; the installability check 8786.
// Measured and kept out, each in a clean-clone run against 717-728 s for these lanes: a fourth
// lane for the steps that mostly wait, the walk in three parts (730 s; vitest 675 s beside the
// walks); the same with the integration tests in that lane (vitest 716 s, two timing failures);
// (three vitest workers then gave 717 s, the walk stretched; kept since decision 162, once the walk
// was lighter). After decision 158,
// the crash harness, drill and installability check beside the journeys' first half (vitest under
// that load failed two timing tests), and also a third of the walk there (vitest 652 s). The run
// is CPU-bound (both cores about 90 % busy on average): moving steps moves time; only less CPU
// per step saves it.
const journeyFiles = readdirSync("tests/e2e").filter((f) => f.endsWith(".spec.ts") && f !== "walk.spec.ts").sort();
/** The longer journeys (about half the journeys' time: operations alone waits out the cron's minute). */
const FIRST_HALF = ["operations", "promotions", "notifications", "recovery", "limits", "operator-security", "earn"].map((f) => `${f}.spec.ts`);
const journeys = (half: 1 | 2) => journeyFiles.filter((f) => FIRST_HALF.includes(f) === (half === 1)).map((f) => `tests/e2e/${f}`);
/** The walk's languages after vitest; the rest after the journeys' second half, which ends later. */
const WALK_FIRST = 6;
const walkHalf = (langs: string, port: string, n: string) => ({ WALK: "1", WALK_LANGS: langs, E2E_PORT: port, E2E_STATE: stateDir(`e2e-walk${n}`), E2E_OUTPUT: `test-results/walk${n}`, E2E_REPORT: `tests/.reports/walk${n}.json` });
await Promise.all([
  beside,
  (async () => {
    // Workerd API, the route and socket fuzzers, the access matrix, the integration servers.
    await vitestStep("vitest");
    // The route walk (decision 067): every page, three identities, ten languages, each language
    // signing in and browsing on its own contexts; the first six languages here, two at a time.
    await step("walk", bin("playwright"), ["test", "tests/e2e/walk.spec.ts", "--workers=2"], walkHalf(LOCALE_KEYS.slice(0, WALK_FIRST).join(","), "8789", ""));
    // The backup and restore drill (npm run ops:drill): export, import into a fresh state, every
    // table compared, ledger check, migrations, verify against the restored app.
    await step("ops:drill", bin("tsx"), ["scripts/ops-drill.ts"]);
  })(),
  (async () => {
    await step("journeys", bin("playwright"), ["test", ...journeys(1)]);
    // The crash harness's short tier: ten SIGKILLs of the server under load (npm run crash -- --kills 50 is the long one).
    await step("crash", bin("tsx"), ["scripts/crash.ts", "--kills", "10"]);
  })(),
  (async () => {
    await step("journeys-2", bin("playwright"), ["test", ...journeys(2)], { E2E_PORT: "8788", E2E_STATE: stateDir("e2e-2"), E2E_OUTPUT: "test-results/journeys-2", E2E_REPORT: "tests/.reports/playwright-2.json" });
    await step("walk-2", bin("playwright"), ["test", "tests/e2e/walk.spec.ts", "--workers=2"], walkHalf(LOCALE_KEYS.slice(WALK_FIRST).join(","), "8791", "-2"));
    // Chromium's installability verdict against the app as `npm start` serves it.
    await step("installable", bin("tsx"), ["scripts/installable.ts"]);
  })(),
]);
timings.push(`total ${((Date.now() - run_started_ms) / 1000).toFixed(0)} s`);
const survived = !failures.includes("crash");
const restored = !failures.includes("ops:drill");
const installable = !failures.includes("installable");

/** The first lines of a failure's message, without colours, indented under its name: CI keeps only the tail. */
function why(message: string | undefined, max_lines = 4): string {
  if (!message) return "";
  const lines = message.replace(/\u001b\[[0-9;]*m/g, "").split("\n").map((l) => l.trimEnd()).filter(Boolean).slice(0, max_lines);
  return lines.map((l) => `\n            ${l.slice(0, 200)}`).join("");
}

let passed = (installable ? 1 : 0) + (survived ? 1 : 0) + (restored ? 1 : 0);
let failed = (installable ? 0 : 1) + (survived ? 0 : 1) + (restored ? 0 : 1);
// The names of what failed go last, next to the count: CI keeps only the tail of the output.
const failedNames: string[] = [];
for (const report of VITEST_REPORTS) {
  if (!existsSync(report)) continue;
  const v = JSON.parse(readFileSync(report, "utf8"));
  passed += v.numPassedTests;
  failed += v.numFailedTests;
  for (const file of v.testResults ?? []) {
    const bad = (file.assertionResults ?? []).filter((t: { status: string }) => t.status === "failed");
    for (const t of bad) failedNames.push(`vitest  ${file.name.replace(process.cwd() + "/", "")} > ${t.fullName}${why(t.failureMessages?.[0])}`);
    if (!bad.length && file.status === "failed") failedNames.push(`vitest  ${file.name.replace(process.cwd() + "/", "")}: ${String(file.message ?? "").split("\n")[0]}`);
  }
}
type Suite = {
  title: string;
  file?: string;
  specs?: { title: string; tests: { status: string; results?: { error?: { message?: string } }[] }[] }[];
  suites?: Suite[];
};
function badSpecs(suite: Suite, path: string[], out: string[], runner: string) {
  for (const spec of suite.specs ?? []) {
    const bad = spec.tests.filter((t) => t.status === "unexpected" || t.status === "flaky");
    const message = bad.flatMap((t) => t.results ?? []).find((r) => r.error?.message)?.error?.message;
    if (bad.length) out.push(`${runner}  ${[...path, spec.title].join(" > ")}${why(message)}`);
  }
  for (const child of suite.suites ?? []) badSpecs(child, [...path, child.title], out, runner);
}
const REPORTS = [["playwright", "tests/.reports/playwright.json"], ["playwright", "tests/.reports/playwright-2.json"], ["walk", "tests/.reports/walk.json"], ["walk", "tests/.reports/walk-2.json"]];
for (const [runner, report] of REPORTS) {
  if (!existsSync(report)) continue;
  const p = JSON.parse(readFileSync(report, "utf8"));
  passed += p.stats.expected;
  failed += p.stats.unexpected + p.stats.flaky;
  for (const suite of p.suites ?? []) badSpecs(suite, [suite.title], failedNames, runner);
}
// No secret the run used in anything it printed or reported (decision 129): named by file, line and kind, never shown.
await new Promise((done) => output.end(done));
const secretHits: SecretHit[] = [];
for (const file of [OUTPUT_LOG, ...VITEST_REPORTS, ...REPORTS.map(([, report]) => report)]) {
  if (existsSync(file)) secretHits.push(...scanText(readFileSync(file, "utf8"), file));
}
if (secretHits.length) {
  failures.push("secrets");
  failedNames.push(`secrets  the run's output holds secrets it used:\n${describeHits(secretHits).replace(/^/gm, "          ")}`);
}

if (failures.length && failed === 0) failed = 1; // a runner that crashed before reporting still fails
if (failures.length || failedNames.length) console.log(`\nfailed: ${[...failures.filter((f) => ["installable", "crash", "ops:drill"].includes(f)).map((f) => `${f}${why((tails[f] ?? []).join("\n"), TAIL_LINES)}`), ...failedNames].join("\n        ") || failures.join(", ")}`);
console.log(`\ntook: ${timings.join(", ")}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failures.length || failed ? 1 : 0);
