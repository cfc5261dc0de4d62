/**
 * Page weight: the gzip JavaScript a browser downloads to show a route on a first visit (the
 * client entry, the root route and the route's own module with every chunk they import, read
 * from the Remix build's manifest). The floor is what any page of this stack ships: the client
 * entry and its imports (React, React DOM, Remix's router).
 */
import { readdirSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import type { GroupResult } from "./lib";

type Manifest = { entry: { module: string; imports: string[] }; routes: Record<string, { module: string; imports?: string[] }> };

/** The routes measured and their targets (KB gzip). */
export const WEIGHT_TARGETS: { name: string; route: string; max_kb: number }[] = [
  { name: "login", route: "routes/auth/login", max_kb: 130 },
  { name: "home", route: "routes/home/wallet-home", max_kb: 130 },
  { name: "markets", route: "routes/markets/markets", max_kb: 200 },
  { name: "trade", route: "routes/trade/trade", max_kb: 200 },
];

function manifest(): Manifest {
  const dir = "public/build/";
  const file = readdirSync(dir).find((f) => f.startsWith("manifest-"));
  if (!file) throw new Error("no Remix build in public/build: run `npx remix build` first");
  const text = readFileSync(dir + file, "utf8");
  return JSON.parse(text.slice(text.indexOf("=") + 1).replace(/;\s*$/, "")) as Manifest;
}

const gzipBytes = (path: string) => gzipSync(readFileSync(`public${path}`), { level: 9 }).length;

function weigh(files: Set<string>): number {
  let total = 0;
  for (const f of files) total += gzipBytes(f);
  return total;
}

export function benchPageWeight(): GroupResult {
  const m = manifest();
  const floorFiles = new Set([m.entry.module, ...m.entry.imports]);
  const floor = weigh(floorFiles);
  const kb = (b: number) => (b / 1024).toFixed(1);
  const verdicts = [`floor (client entry: React, React DOM, Remix router): ${kb(floor)} KB gzip`];
  let over = 0;
  for (const t of WEIGHT_TARGETS) {
    const files = new Set(floorFiles);
    for (const id of ["root", t.route]) {
      const r = m.routes[id];
      if (!r) throw new Error(`route ${id} is not in the build`);
      files.add(r.module);
      for (const i of r.imports ?? []) files.add(i);
    }
    const bytes = weigh(files);
    const ok = bytes / 1024 <= t.max_kb;
    if (!ok) over += 1;
    verdicts.push(`${t.name.padEnd(8)} ${kb(bytes).padStart(6)} KB gzip JavaScript, ${(bytes / floor).toFixed(2)}x the floor, target <= ${t.max_kb} KB: ${ok ? "met" : "MISSED"}`);
  }
  verdicts.push(over ? `${over} route(s) over their target` : "every measured route within its target");
  return { rows: [], verdicts };
}
