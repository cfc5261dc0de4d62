/**
 * 'Please enter complete information' is one rule (`useFieldGuard` in app/components/form.tsx):
 * a form's onSubmit that re-types the check and its toast is a second copy. This fails on one.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../source-files";

const ROOT = join(__dirname, "../../..");

const sources = (dir: string) => sourceFiles(dir);

describe("the required-fields check", () => {
  it("no form re-types it in its own onSubmit", () => {
    const copies = sources(join(ROOT, "app"))
      .filter((f) => !f.endsWith(join("components", "form.tsx")) && /missingFields\(e\.currentTarget/.test(readFileSync(f, "utf8")))
      .map((f) => relative(ROOT, f));
    expect(copies).toEqual([]);
  });
});
