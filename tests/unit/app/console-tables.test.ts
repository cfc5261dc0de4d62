/**
 * Every console table scrolls inside its own wrapper (TableWrap in app/components/admin/money.tsx),
 * so a long row widens the table, never the page: at 390 px a wider page is a layout bug.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(__dirname, "../../..");

function consoleFiles(): string[] {
  return ["app/routes/admin", "app/components/admin"].flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".tsx"))
      .map((f) => join(dir, f)),
  );
}

/** How many of a module's tables no open TableWrap holds. */
export function unwrappedTables(source: string): number {
  let open = 0;
  let unwrapped = 0;
  for (const [tag] of source.matchAll(/<TableWrap\b|<\/TableWrap>|<table\b/g)) {
    if (tag === "<table") unwrapped += open > 0 ? 0 : 1;
    else if (tag === "</TableWrap>") open -= 1;
    else open += 1;
  }
  return unwrapped;
}

describe("console tables scroll inside their wrapper", () => {
  it("finds console modules with tables", () => {
    expect(consoleFiles().filter((f) => readFileSync(join(root, f), "utf8").includes("<table")).length).toBeGreaterThan(8);
  });

  it("every <table> in the console sits in a TableWrap", () => {
    const bad = consoleFiles().filter((f) => unwrappedTables(readFileSync(join(root, f), "utf8")) > 0);
    expect(bad).toEqual([]);
  });

  it("tells a bare table from a wrapped one (the check itself can fail)", () => {
    expect(unwrappedTables("<section><table className='table'></table></section>")).toBe(1);
    expect(unwrappedTables("<TableWrap fit><table className='table'></table></TableWrap><table />")).toBe(1);
    expect(unwrappedTables("<TableWrap>\n  <table className='table'></table>\n</TableWrap>")).toBe(0);
  });
});
