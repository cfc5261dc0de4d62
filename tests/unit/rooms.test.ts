/**
 * Imports point one way between the rooms: the pages (app/) may use the Worker's rules, but the
 * Worker and the Durable Objects never import from app/. A page-only module pulled into the
 * Worker would ship React-side code to the API, and a rule defined under app/ would have two
 * homes the day the Worker needs it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(__dirname, "../..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

/** Every relative import or export-from specifier of a file, resolved to a path from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs = [...text.matchAll(/(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)/g)].map((m) => m[1] ?? m[2]);
  return specs.map((s) => relative(ROOT, resolve(dirname(file), s)));
}

describe("rooms", () => {
  for (const room of ["worker", "durable-objects"]) {
    it(`${room}/ never imports from app/`, () => {
      const back = sources(join(ROOT, room)).flatMap((f) => importsOf(f).filter((p) => p === "app" || p.startsWith("app/")).map((p) => `${relative(ROOT, f)} -> ${p}`));
      expect(back).toEqual([]);
    });
  }

  it("the check sees an import into app/ (it is not blind)", () => {
    const file = join(ROOT, "app/lib/client-action.ts");
    expect(importsOf(file)).toContain("worker/api/request-timeout");
  });
});
