import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/**
 * The Workers types come from `wrangler types` (worker-configuration.d.ts: the runtime at
 * wrangler.toml's compatibility date and flags, and its bindings), not from a dated entry point
 * of @cloudflare/workers-types. After a change to wrangler.toml: `npx wrangler types`.
 */
const root = new URL("../../../", import.meta.url).pathname;
const quiet = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_UPDATE_NOTIFIER: "1" };

describe("Workers types (wrangler types)", () => {
  it("worker-configuration.d.ts is what `wrangler types` makes of today's wrangler.toml", async () => {
    const check = promisify(execFile)("node_modules/.bin/wrangler", ["types", "--check"], { cwd: root, env: quiet });
    await expect(check).resolves.toMatchObject({ stdout: expect.stringContaining("up to date") });
  });

  it("tsconfig and remix.env.d.ts use it, and name no dated workers-types entry point", () => {
    const tsconfig = readFileSync(`${root}tsconfig.json`, "utf8");
    const remixEnv = readFileSync(`${root}remix.env.d.ts`, "utf8");
    expect(tsconfig + remixEnv).not.toMatch(/workers-types\/\d{4}-\d{2}-\d{2}/);
    expect(remixEnv).toContain('/// <reference path="./worker-configuration.d.ts" />');
    const generated = readFileSync(`${root}worker-configuration.d.ts`, "utf8");
    const date = /compatibility_date\s*=\s*"([\d-]+)"/.exec(readFileSync(`${root}wrangler.toml`, "utf8"))?.[1];
    expect(generated).toContain(`Runtime types generated with workerd@`);
    expect(generated).toContain(` ${date} `);
  });
});
