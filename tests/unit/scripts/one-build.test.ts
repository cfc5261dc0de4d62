/**
 * Every build of the pages goes through `buildApp` (scripts/lib.ts), which builds for production
 * whatever NODE_ENV the caller runs under: a build started under vitest (NODE_ENV=test) once
 * shipped React's development build to the journeys. A new `remix build` elsewhere fails here.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../source-files";

const ROOT = join(__dirname, "../../..");

const sources = (dir: string) => sourceFiles(dir, (name) => /\.(ts|tsx|js|mjs)$/.test(name), ["node_modules", "artifacts"]);

describe("one build", () => {
  it("no script or test runs `remix build` but buildApp", () => {
    const builds = [...sources(join(ROOT, "scripts")), ...sources(join(ROOT, "tests"))]
      .filter((f) => /["']remix["']\)?,\s*\[?\s*["']build["']|remix build["']/.test(readFileSync(f, "utf8")))
      .map((f) => relative(ROOT, f));
    expect(builds).toEqual(["scripts/lib.ts"]);
  });

  it("buildApp builds for production whatever NODE_ENV says", () => {
    const lib = readFileSync(join(ROOT, "scripts/lib.ts"), "utf8");
    const body = lib.slice(lib.indexOf("function buildApp"), lib.indexOf("export function runQuietly"));
    expect(body).toContain('NODE_ENV: "production"');
  });
});
