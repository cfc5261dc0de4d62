import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

/**
 * Two projects: `unit` (plain functions, in Node) and `api` (the real Worker, D1 and R2
 * inside workerd). `npm run build` must run first: the Worker imports the Remix build.
 */
export default defineConfig({
  test: {
    // Vitest's default on a 2-core machine is one file at a time; API test files spend much of
    // their time waiting on workerd (timers, sockets, D1), so two at once finish sooner.
    maxWorkers: 2,
    projects: [
      {
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"], environment: "node" },
      },
      {
        // Node tests that start their own `wrangler dev` (the real-exchange adapter).
        test: { name: "integration", include: ["tests/integration/**/*.test.ts"], environment: "node", testTimeout: 60_000, hookTimeout: 180_000, fileParallelism: false },
      },
      {
        plugins: [
          cloudflareTest(async () => ({
            main: "./worker/index.ts",
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              // D1_LIMITS: every invocation's D1 view throws where production D1 would
              // (100 parameters, 100 KB of SQL, 1,000 queries; worker/db/limits.ts).
              // FUZZ_RUNS: bad requests a route in tests/api/fuzz (`npm run fuzz -- --runs N` raises it).
              bindings: { TEST_MIGRATIONS: await readD1Migrations("./migrations"), APP_ENV: "test", D1_LIMITS: "enforce", TEST_CLOCK: "1", FUZZ_RUNS: process.env.FUZZ_RUNS ?? "200" },
            },
          })),
        ],
        test: {
          name: "api",
          include: ["tests/api/**/*.test.ts"],
          setupFiles: ["./tests/api/setup.ts"],
          testTimeout: 30_000,
          deps: {
            optimizer: {
              ssr: {
                enabled: true,
                include: [
                  "@remix-run/cloudflare", "@remix-run/server-runtime", "cookie", "set-cookie-parser",
                  "hono", "hono/secure-headers", "hono/utils/http-status",
                  "drizzle-orm", "drizzle-orm/sqlite-core", "drizzle-orm/d1", "drizzle-orm/batch",
                  "zod", "viem", "viem/accounts", "viem/siwe",
                  "@simplewebauthn/server", "@simplewebauthn/server/helpers", "otpauth",
                  "@scure/base", "@scure/bip32",
                  "@noble/hashes/sha2.js", "@noble/hashes/sha3.js", "@noble/hashes/argon2.js", "@noble/hashes/pbkdf2.js", "@noble/hashes/legacy.js", "@noble/curves/secp256k1.js",
                  "i18next", "react-i18next", "remix-i18next/server", "react", "react-dom/server", "isbot",
                ],
              },
            },
          },
        },
      },
    ],
  },
});
