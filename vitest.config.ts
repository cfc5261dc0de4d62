import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { PREBUNDLED } from "./tests/api/prebundled";
import { witnessBindings } from "./tests/api/transparency/witness-keys";

/**
 * API test files that need a workerd of their own. The others share one workerd (and its D1,
 * R2 and objects) per vitest worker, file after file (decision 104): starting workerd and
 * importing the Worker cost about 6 s a file. A file belongs here when it asserts something
 * about the whole world (the transparency log audits every leaf, whoever wrote it); one that moves
 * the test clock (it lives in D1 and only goes forward) goes to CLOCK_MOVERS below.
 */
const OWN_WORKERD = [
  // Stamps its database as a demo's (decision 122): no other file could run on it after.
  "tests/api/demo.test.ts",
  // Its limits count every order of the day, whoever placed it.
  "tests/api/trading-limits.test.ts",
  // Each audits or rewrites the whole log: another file's leaves, or another key, change its answer.
  "tests/api/transparency/*.test.ts",
  "tests/api/keys/log-handover.test.ts",
  // Readiness judges the whole world (feeds, overdue orders, the log's inbox, the cron's record).
  "tests/api/ops/readiness.test.ts",
];

/**
 * Files that move the test clock forward or act on every row of a table, and pass after one
 * another in any order (checked with `--sequence.shuffle.files` under several seeds, all in one
 * workerd): they share workerds among themselves, never with the `api` project's files, whose
 * tests read the clock as the real one. Decision 162.
 */
const CLOCK_MOVERS = [
  "tests/api/clock.test.ts",
  "tests/api/earn/*.test.ts",
  // Re-sealing every card and ending every session act on whole tables, but on rows the other files here do not read back.
  "tests/api/keys/people.test.ts",
  "tests/api/keys/reseal.test.ts",
  "tests/api/ops/cron.test.ts",
];

/** The deploy's dry run (`npm run deploy -- --dry-run`): a Node test whose typecheck is most of its time. */
const DEPLOY_DRY_RUN = "tests/integration/deploy-dry-run.test.ts";

/** Files whose workerd has the log's witnesses configured (decision 108); each its own workerd too. */
const WITNESSED = ["tests/api/transparency/witnesses.test.ts"];

/**
 * Vite's pre-bundles live in the checkout, not in node_modules: checkouts that share one
 * node_modules (git worktrees) would otherwise rebuild each other's bundles mid-run.
 */
const CACHE_DIR = ".cache/vite";

/** The real Worker, D1 and R2 inside workerd, under production's D1 limits. */
function workersProject(name: string, files: { include: string[]; exclude?: string[]; isolate: boolean }, vars: Record<string, string> = {}) {
  return {
    cacheDir: CACHE_DIR,
    // Passwords hashed at 64 KiB instead of 19 MiB inside these tests only (decision 151): a
    // compile-time constant of this bundle, never a setting of the Worker that serves users.
    define: { __TEST_LIGHT_KDF__: "true" },
    plugins: [
      cloudflareTest(async () => ({
        main: "./worker/index.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // D1_LIMITS: every invocation's D1 view throws where production D1 would
          // (100 parameters, 100 KB of SQL, 1,000 queries; worker/db/limits.ts).
          // FUZZ_RUNS: bad requests a route in tests/api/fuzz (`npm run fuzz -- --runs N` raises it).
          // PUSH_TEST_HOSTS: push endpoints on `.test` hosts reach the tests' local push service.
          bindings: { TEST_MIGRATIONS: await readD1Migrations("./migrations"), APP_ENV: "test", D1_LIMITS: "enforce", TEST_CLOCK: "1", PUSH_TEST_HOSTS: "1", FUZZ_RUNS: process.env.FUZZ_RUNS ?? "200", ...vars },
        },
      })),
    ],
    test: {
      name,
      ...files,
      setupFiles: ["./tests/api/setup.ts"],
      // Generous: a busy machine (CI beside other jobs) slows workerd's D1 and timers several fold.
      testTimeout: 30_000,
      hookTimeout: 60_000,
      deps: {
        optimizer: {
          ssr: {
            enabled: true,
            include: [...PREBUNDLED],
          },
        },
      },
    },
  };
}

/**
 * Projects: `unit` (plain functions, in Node), `integration` (Node tests that start their own
 * server), `deploy` (the deploy's dry run), and `api` / `api-clock` / `api-isolated` /
 * `api-witnessed` (the real Worker, D1 and R2 inside workerd; the last with the transparency
 * log's witnesses configured). `remix build` must run
 * first: the Worker imports the Remix build.
 */
export default defineConfig({
  cacheDir: CACHE_DIR,
  test: {
    // Vitest's default on a 2-core machine is one file at a time; API test files spend much of
    // their time waiting on workerd (timers, sockets, D1, a code's next 30 s step), so three at
    // once keep both cores busy beside the journeys (decision 162: the cores 97 % busy, not 90).
    maxWorkers: 3,
    projects: [
      {
        cacheDir: CACHE_DIR,
        // Timing belongs in benches: a unit test that hashes a password (argon2, about a second idle)
        // gets room for a loaded machine rather than Vitest's 5 s. isolate: false: the files share
        // their worker's imported modules instead of importing them again each (plain functions,
        // no module mocks): 44 CPU-s for the project before, 22 after (decision 159).
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"], environment: "node", testTimeout: 30_000, isolate: false },
      },
      {
        cacheDir: CACHE_DIR,
        // Node tests that start servers of their own (scripts/workerd-serve.ts) and talk to them.
        test: { name: "integration", include: ["tests/integration/**/*.test.ts"], exclude: [DEPLOY_DRY_RUN], environment: "node", testTimeout: 60_000, hookTimeout: 180_000 },
      },
      {
        cacheDir: CACHE_DIR,
        // The deploy's dry run, its typecheck the longest single piece of CPU in the run: a project
        // of its own so `npm test` can run it beside the other steps (decision 163).
        test: { name: "deploy", include: [DEPLOY_DRY_RUN], environment: "node", testTimeout: 60_000 },
      },
      workersProject("api", { include: ["tests/api/**/*.test.ts"], exclude: [...OWN_WORKERD, ...CLOCK_MOVERS, ...WITNESSED], isolate: false }),
      workersProject("api-clock", { include: CLOCK_MOVERS, isolate: false }),
      workersProject("api-isolated", { include: OWN_WORKERD, exclude: WITNESSED, isolate: true }),
      workersProject("api-witnessed", { include: WITNESSED, isolate: true }, witnessBindings()),
    ],
  },
});
