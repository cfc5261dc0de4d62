/**
 * Every build of the pages goes through `buildApp` (scripts/lib.ts), which builds for production
 * whatever NODE_ENV the caller runs under: a build started under vitest (NODE_ENV=test) once
 * shipped React's development build to the journeys. A new `remix build` elsewhere fails here.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "../../..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules" || name === "artifacts") return [];
    return statSync(path).isDirectory() ? sources(path) : /\.(ts|tsx|js|mjs)$/.test(name) ? [path] : [];
  });
}

describe("one build", () => {
  it("no script or test runs `remix build` but buildApp", () => {
    const builds = [...sources(join(ROOT, "scripts")), ...sources(join(ROOT, "tests"))]
      .filter((f) => /["']remix["']\)?,\s*\[?\s*["']build["']|remix build["']/.test(readFileSync(f, "utf8")))
      .map((f) => relative(ROOT, f));
    expect(builds).toEqual(["scripts/lib.ts"]);
  });

  it("buildApp builds for production whatever NODE_ENV says", () => {
    const lib = readFileSync(join(ROOT, "scripts/lib.ts"), "utf8");
    const body = lib.slice(lib.indexOf("export function buildApp"), lib.indexOf("export function runQuietly"));
    expect(body).toContain('NODE_ENV: "production"');
  });
});
