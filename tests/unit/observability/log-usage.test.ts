import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** Every TypeScript file under the Worker and its objects (the two modules of worker/observability write the console). */
function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name)) out.push(path);
    }
  };
  walk("worker");
  walk("durable-objects");
  return [...out, "app/entry.server.tsx"].filter((p) => !p.startsWith("worker/observability/"));
}

describe("every line the Worker writes goes through the structured logger", () => {
  it("no console.* in worker/, durable-objects/ or the server entry", () => {
    const bare = sources().filter((p) => /\bconsole\.(log|info|warn|error|debug)\b/.test(readFileSync(p, "utf8")));
    expect(bare).toEqual([]);
  });

  it("every event logged is a dotted name listed in docs/ops/observability.md", () => {
    const doc = readFileSync("docs/ops/observability.md", "utf8");
    const events = new Set<string>();
    for (const p of sources()) for (const m of readFileSync(p, "utf8").matchAll(/(?:log(?:Error|Warn|Info)|deps\.log)\("([^"]+)"/g)) events.add(m[1]);
    expect(events.size).toBeGreaterThan(10);
    for (const e of events) {
      expect(e, e).toMatch(/^[a-z]+(\.[a-z_]+)+$/);
      expect(doc.includes(`\`${e}\``), `${e} in docs/ops/observability.md`).toBe(true);
    }
  });
});
