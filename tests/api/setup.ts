import { applyD1Migrations } from "cloudflare:test";
import { testEnv } from "./helpers";

// Each test file's workerd gets the real migrations, exactly as wrangler applies them.
const migrations = (testEnv as unknown as { TEST_MIGRATIONS: Parameters<typeof applyD1Migrations>[1] }).TEST_MIGRATIONS;
await applyD1Migrations(testEnv.DB, migrations);

// Every API test runs under production's D1 limits; without the binding they would be silently off.
if (testEnv.D1_LIMITS !== "enforce") throw new Error("tests/api need the D1_LIMITS=enforce binding (vitest.config.ts)");

// A test database holds real-mode money (decision 122): stamped before any file's demo test grants
// demo money in it, so the Worker's entry never takes it for a demo's. tests/api/demo.test.ts, in
// a workerd of its own, takes the stamp off to start as an unstamped database.
await testEnv.DB.prepare("INSERT INTO app_config (key, value, updated_at_ms) VALUES ('money_mode', 'real', 0) ON CONFLICT DO NOTHING").run();
