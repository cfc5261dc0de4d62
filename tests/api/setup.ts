import { applyD1Migrations } from "cloudflare:test";
import { testEnv } from "./helpers";

// Each test file's workerd gets the real migrations, exactly as wrangler applies them.
const migrations = (testEnv as unknown as { TEST_MIGRATIONS: Parameters<typeof applyD1Migrations>[1] }).TEST_MIGRATIONS;
await applyD1Migrations(testEnv.DB, migrations);

// Every API test runs under production's D1 limits; without the binding they would be silently off.
if (testEnv.D1_LIMITS !== "enforce") throw new Error("tests/api need the D1_LIMITS=enforce binding (vitest.config.ts)");
