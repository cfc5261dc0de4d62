/**
 * The README and docs/ name only files that exist: every relative link, and every backticked
 * path under one of the project's rooms (globs, placeholders and generated reports aside).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(__dirname, "../..");
const ROOMS = ["app/", "worker/", "durable-objects/", "scripts/", "tests/", "docs/", "migrations/", "locales/", "public/"];
/** Written by a run, not kept in the repo: the folders .gitignore names from the root. */
const GENERATED = readFileSync(join(root, ".gitignore"), "utf8")
  .split("\n")
  .filter((line) => line.startsWith("/") && line.endsWith("/"))
  .map((line) => line.slice(1));

function markdownFiles(): string[] {
  const docs = readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md")).map((f) => join("docs", f));
  return ["README.md", ...docs];
}

function deadPaths(file: string, text = readFileSync(join(root, file), "utf8")): string[] {
  const dead: string[] = [];
  for (const [, link] of text.matchAll(/\]\(([^)#\s]+)/g)) {
    if (/^[a-z]+:/.test(link)) continue;
    if (!existsSync(join(root, normalize(join(dirname(file), link))))) dead.push(link);
  }
  for (const [, raw] of text.matchAll(/`([^`\s]+)`/g)) {
    const path = raw.replace(/[.,]$/, "");
    if (!ROOMS.some((r) => path.startsWith(r)) || /[*<>{}:$]|\.\.\.|…/.test(path) || GENERATED.some((g) => path.startsWith(g))) continue;
    if (!existsSync(join(root, path))) dead.push(path);
  }
  return dead;
}

describe("README and docs name real files", () => {
  it("every relative link and every backticked path of a room exists", () => {
    const dead = markdownFiles().flatMap((f) => deadPaths(f).map((p) => `${f}: ${p}`));
    expect(dead).toEqual([]);
  });

  it("notices a dead path, as a link or in backticks (the check itself can fail)", () => {
    const text = "served by `app/routes/admin.products.tsx`, see [the map](docs/nowhere.md) and `worker/cron.ts`";
    expect(deadPaths("README.md", text)).toEqual(["docs/nowhere.md", "app/routes/admin.products.tsx"]);
  });

  it("the README stays a front door", () => {
    expect(readFileSync(join(root, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(120);
  });
});
