import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

/**
 * Two projects: `unit` (plain functions, in Node) and `api` (the real Worker, D1 and R2
 * inside workerd). `npm run build` must run first: the Worker imports the Remix build.
 */
export default defineConfig({
  test: {
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
              bindings: { TEST_MIGRATIONS: await readD1Migrations("./migrations"), APP_ENV: "test", D1_LIMITS: "enforce", TEST_CLOCK: "1" },
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
                include: ["@remix-run/cloudflare", "@remix-run/server-runtime", "cookie", "set-cookie-parser"],
              },
            },
          },
        },
      },
    ],
  },
});
