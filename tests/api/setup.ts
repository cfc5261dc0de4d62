import { applyD1Migrations } from "cloudflare:test";
import { testEnv } from "./helpers";

// Each test file's workerd gets the real migrations, exactly as wrangler applies them.
const migrations = (testEnv as unknown as { TEST_MIGRATIONS: Parameters<typeof applyD1Migrations>[1] }).TEST_MIGRATIONS;
await applyD1Migrations(testEnv.DB, migrations);
