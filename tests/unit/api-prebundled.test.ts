/**
 * Every package that the Worker, its Durable Objects or the API tests import at run time is
 * prebundled for the API tests' workerd (tests/api/prebundled.ts): a missing one is loaded file
 * by file through the module runner in every workerd of the run.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PREBUNDLED } from "../api/prebundled";
import { sourceFiles } from "./source-files";

const ROOT = resolve(__dirname, "../..");
/** Provided by the runtime or the test runner, never bundled. */
const BUILT_IN = /^(cloudflare:|node:|vitest$|@cloudflare\/vitest-pool-workers)/;

/** The package specifiers a file imports at run time (`import type` is erased and left out). */
export function runtimePackageImports(text: string): string[] {
  const specs = [...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)(?:[^;"]*?\sfrom\s+)?"([^".][^"]*)"|import\(\s*"([^".][^"]*)"\s*\)/gm)].map((m) => m[1] ?? m[2]);
  return specs.filter((s) => !BUILT_IN.test(s) && !s.startsWith("~/"));
}

describe("packages prebundled for the API tests", () => {
  it("reads run-time package imports and skips type-only ones", () => {
    expect(runtimePackageImports('import { z } from "zod";\nimport type { X } from "hono";\nimport * as a from "@scure/base";\nimport "./local";\nimport { y } from "node:fs";')).toEqual(["zod", "@scure/base"]);
  });

  it("holds every package the Worker, its objects and the API tests import", () => {
    const files = ["worker", "durable-objects", "tests/api"].flatMap((dir) => sourceFiles(resolve(ROOT, dir), (name) => name.endsWith(".ts") && !name.endsWith(".d.ts")));
    const imported = new Set(files.flatMap((file) => runtimePackageImports(readFileSync(file, "utf8"))));
    const missing = [...imported].filter((spec) => !(PREBUNDLED as readonly string[]).includes(spec)).sort();
    expect(missing).toEqual([]);
  });
});
