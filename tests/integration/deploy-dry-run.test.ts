import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * `npm run deploy -- --env staging --dry-run` on this checkout, as an operator runs it with no
 * Cloudflare account: the whole preflight (configuration, `tsc --noEmit`, the bundle wrangler
 * would upload, migrations, objects) passes and every wrangler command is printed. The slow part
 * is the typecheck (about a minute of CPU); `npm test` has built already (PROOFLINE_BUILT=1).
 */
describe("npm run deploy -- --env staging --dry-run", () => {
  it("passes on this checkout, offline, and prints the commands a real run would run", () => {
    const r = spawnSync("node_modules/.bin/tsx", ["scripts/deploy.ts", "--env", "staging", "--dry-run"], {
      encoding: "utf8",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_API_TOKEN: "", PROOFLINE_BUILT: process.env.PROOFLINE_BUILT ?? "" },
      timeout: 590_000,
    });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.status, out).toBe(0);
    expect(out).toMatch(/preflight passed/);
    expect(out).toMatch(/bundle: .* gzip: .* \(limit 3072\.0 KiB\)/);
    expect(out).toContain("would run: npx wrangler d1 time-travel info DB --json --env staging");
    expect(out).toMatch(/would run: npx wrangler versions upload --env staging --tag [0-9a-f]{12}/);
    expect(out).toContain("would run: npx wrangler versions deploy '<new-version-id>@100%'");
    expect(out).toMatch(/dry run passed/);
  }, 600_000);

  it("refuses an unknown environment before doing anything", () => {
    const r = spawnSync("node_modules/.bin/tsx", ["scripts/deploy.ts", "--env", "prod", "--dry-run"], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--env must be one of staging, production/);
  });
});
