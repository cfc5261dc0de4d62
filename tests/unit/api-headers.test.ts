/**
 * The API's envelopes are made with their headers in one step (worker/api/envelope.ts,
 * decision 168), so a header written through Hono's `c.header()` would never reach them: a
 * cookie goes through `queueCookie`, and no code of the Worker writes `c.header()`.
 */
import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./source-files";

const ROOT = resolve(__dirname, "../..");

/** Code lines (not comments) that write a header through a Hono context (`c.header(...)`), not read one (`c.req.header(...)`). */
export function contextHeaderWrites(text: string): string[] {
  return text.split("\n").filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line) && /\b(c|ctx|context)\.header\(/.test(line));
}

describe("API answers carry their headers from one place", () => {
  it("finds a context header write and leaves a request header read alone", () => {
    expect(contextHeaderWrites('c.header("set-cookie", v, { append: true });\nconst t = c.req.header("token");\n * not through `c.header()`')).toEqual(['c.header("set-cookie", v, { append: true });']);
  });

  it("no Worker code writes a header through Hono's context", () => {
    const files = ["worker", "durable-objects"].flatMap((dir) => sourceFiles(resolve(ROOT, dir)));
    const writes = files.flatMap((file) => contextHeaderWrites(readFileSync(file, "utf8")).map((line) => `${relative(ROOT, file)}: ${line.trim()}`));
    expect(writes).toEqual([]);
  });
});
