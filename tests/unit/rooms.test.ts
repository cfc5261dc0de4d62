/**
 * Imports point one way between the rooms (docs/architecture.md, "Rooms"):
 * - the pages (app/) may use the Worker's rules, but the Worker and the Durable Objects never
 *   import from app/: a page-only module pulled into the Worker would ship React-side code to the
 *   API, and a rule defined under app/ would have two homes the day the Worker needs it;
 * - no file of worker/ or durable-objects/ imports, through any chain, a file that imports it;
 * - the Durable Objects use the Worker's rules and foundations, never its entry, HTTP or socket
 *   layer; the Worker reaches the objects only through what they publish for it (protocol.ts and
 *   the `*-api.ts` files), apart from its entry exporting their classes as wrangler requires;
 * - the API's middleware sits below its resources and app, and no two folders inside worker/ or
 *   durable-objects/ import each other, but for the few pairs listed (a list that only shrinks).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import * as sessionModule from "../../worker/domain/identity/session";
import { sourceFiles } from "./source-files";

const ROOT = resolve(__dirname, "../..");

const sources = (dir: string) => sourceFiles(dir, (name) => /\.(ts|tsx)$/.test(name) && !name.endsWith(".d.ts"));

/** Every relative import or export-from specifier of a file (types too), resolved to a path from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs = [...text.matchAll(/(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)|import\s+"(\.[^"]+)"/g)].map((m) => m[1] ?? m[2] ?? m[3]);
  return specs.map((s) => relative(ROOT, resolve(dirname(file), s)));
}

/** The file an import names (`x` is `x.ts`, `x.tsx` or `x/index.ts`), or the bare path when none is found. */
function fileOf(path: string): string {
  const found = ["", ".ts", ".tsx", "/index.ts"].map((ext) => path + ext).find((p) => existsSync(join(ROOT, p)) && statSync(join(ROOT, p)).isFile());
  return found ?? path;
}

type Graph = Map<string, string[]>;

/** The relative-import graph of the files under `rooms`, file to file (only arrows between those files). */
function importGraph(rooms: readonly string[]): Graph {
  const files = rooms.flatMap((room) => sources(join(ROOT, room))).map((f) => relative(ROOT, f));
  const known = new Set(files);
  return new Map(files.map((f) => [f, [...new Set(importsOf(join(ROOT, f)).map(fileOf))].filter((t) => known.has(t))]));
}

/** The file circles of a graph (its strongly connected parts of two files or more, or a file importing itself), each sorted. */
function circles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      part.push(w);
    } while (w !== v);
    if (part.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(part.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Arrows `from` -> `to` of the graph where `from` matches `fromRoom` and `to` matches `toRoom` but none of `allowed`. */
function arrowsOutside(graph: Graph, fromRoom: (f: string) => boolean, toRoom: (f: string) => boolean, allowed: readonly RegExp[]): string[] {
  return [...graph].flatMap(([from, tos]) => (fromRoom(from) ? tos.filter((to) => toRoom(to) && !allowed.some((a) => a.test(to))).map((to) => `${from} -> ${to}`) : []));
}

/**
 * What the Durable Objects may import from worker/: the rules and the schema, and the Worker's
 * foundations (binding types, logs and metrics, words, the deployment's mode, and notices.ts, the
 * one way a notice reaches pages and devices after its batch). Never the entry, the API, the
 * socket and file handlers, the cron, or the push and mail senders directly.
 */
const OBJECTS_MAY_IMPORT = [/^worker\/domain\//, /^worker\/db\//, /^worker\/observability\//, /^worker\/(env|i18n|mode|app-env|notices)\.ts$/];

/** What the Worker may import from durable-objects/: the wire protocol and each object's published face. */
const WORKER_MAY_IMPORT = [/^durable-objects\/protocol\.ts$/, /^durable-objects\/(?:[^/]+\/)*[^/]+-api\.ts$/];

/**
 * Sibling folders that still import each other, each for a reason of its domain: recovery
 * reaches a profile's verified contact while contact checks send one-time codes; a market's
 * save proposes terms while opening terms rewrites the market. Shrink this list; never grow it.
 */
const TWO_WAY_FOLDERS = ["worker/domain/identity <-> worker/domain/profiles", "worker/domain/terms <-> worker/domain/trades"];

/**
 * The pairs of sibling folders (inside one room: worker/api and worker/domain, say, not worker/
 * and durable-objects/) that import each other, as "A <-> B" with A before B. An import from a
 * folder into a file of its parent is no pair: the parent's files are its base.
 */
function twoWayFolders(graph: Graph): string[] {
  const pairs = new Set<string>();
  for (const [from, tos] of graph) {
    for (const to of tos) {
      const a = from.split("/");
      const b = to.split("/");
      let i = 0;
      while (i < a.length - 1 && i < b.length - 1 && a[i] === b[i]) i += 1;
      if (i === 0 || i >= a.length - 1 || i >= b.length - 1) continue;
      pairs.add(`${a.slice(0, i + 1).join("/")} -> ${b.slice(0, i + 1).join("/")}`);
    }
  }
  return [...pairs].flatMap((pair) => {
    const [a, b] = pair.split(" -> ");
    return a < b && pairs.has(`${b} -> ${a}`) ? [`${a} <-> ${b}`] : [];
  });
}

/** The Worker's entry: it exports the objects' classes (wrangler requires it), and nothing else of theirs. */
const ENTRY = "worker/index.ts";

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

describe("arrows one way in worker/ and durable-objects/", () => {
  const graph = importGraph(["worker", "durable-objects"]);

  it("no file imports, through any chain, a file that imports it", () => {
    expect(circles(graph)).toEqual([]);
  });

  it("the Durable Objects import from worker/ only its rules, schema and foundations", () => {
    expect(arrowsOutside(graph, (f) => f.startsWith("durable-objects/"), (t) => t.startsWith("worker/"), OBJECTS_MAY_IMPORT)).toEqual([]);
  });

  it("the Worker imports from durable-objects/ only protocol.ts and the *-api.ts files (its entry also exports the classes)", () => {
    const fromWorker = (f: string) => f.startsWith("worker/") && f !== ENTRY;
    expect(arrowsOutside(graph, fromWorker, (t) => t.startsWith("durable-objects/"), WORKER_MAY_IMPORT)).toEqual([]);
  });

  it("the API's middleware never imports the API's app or resources", () => {
    const fromMiddleware = (f: string) => f.startsWith("worker/api/middleware/");
    expect(arrowsOutside(graph, fromMiddleware, (t) => t === "worker/api/app.ts" || t.startsWith("worker/api/resources/"), [])).toEqual([]);
  });

  it("no two sibling folders import each other (but the pairs listed)", () => {
    expect(twoWayFolders(graph).filter((pair) => !TWO_WAY_FOLDERS.includes(pair))).toEqual([]);
  });

  it("the checks see the arrows that are there (they are not blind)", () => {
    expect(graph.get("worker/env.ts")).toContain("durable-objects/quotes/hub-api.ts");
    expect(graph.get("durable-objects/quotes/quote-hub.ts")).toContain("worker/db/client.ts");
    expect(graph.get(ENTRY)).toContain("durable-objects/quotes/quote-hub.ts");
    expect(graph.get("worker/api/app.ts")).toContain("worker/api/middleware/step-up.ts");
    expect(circles(new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]))).toEqual([["a", "b", "c"]]);
    expect(twoWayFolders(new Map([["w/x/a.ts", ["w/y/b.ts", "w/c.ts"]], ["w/y/b.ts", ["w/x/d.ts"]], ["w/c.ts", ["w/x/a.ts"]]]))).toEqual(["w/x <-> w/y"]);
    expect(twoWayFolders(graph)).toEqual(expect.arrayContaining(TWO_WAY_FOLDERS));
  });
});

describe("one home for each cross-cutting rule", () => {
  /** Lines of the Worker's and the objects' code (not under `home`) that match `pattern`, as "file: line". */
  function outside(home: string, pattern: RegExp): string[] {
    return ["worker", "durable-objects"].flatMap((room) =>
      sources(join(ROOT, room))
        .map((f) => relative(ROOT, f))
        .filter((f) => !f.startsWith(home))
        .flatMap((f) => readFileSync(join(ROOT, f), "utf8").split("\n").filter((line) => pattern.test(line)).map((line) => `${f}: ${line.trim()}`)),
    );
  }

  it("every write of the ledger's tables is in worker/domain/ledger/", () => {
    const writes = /INSERT INTO ledger_|UPDATE ledger_|DELETE FROM ledger_|\.(insert|update|delete)\(ledger_/;
    expect(outside("worker/domain/ledger/", writes)).toEqual([]);
    // Not blind: the ledger's own writes are seen.
    expect(readFileSync(join(ROOT, "worker/domain/ledger/transfer.ts"), "utf8")).toMatch(writes);
  });

  it("one session resolver: every way in resolves a session through resolveSession", () => {
    expect(Object.keys(sessionModule).filter((name) => /^resolve/i.test(name))).toEqual(["resolveSession"]);
    const ways_in = ["worker/api/middleware/auth.ts", "worker/ws.ts", "worker/service-sockets.ts", "worker/files.ts", "durable-objects/quotes/session-cache.ts"];
    expect(ways_in.filter((f) => !readFileSync(join(ROOT, f), "utf8").includes("resolveSession("))).toEqual([]);
  });

  it("one migration runner: wrangler's apply is written only in scripts/migrations.ts (migrationsApply), workerd's only in tests/api/setup.ts", () => {
    // (This file names the patterns, so it is not searched.)
    const files = ["scripts", "tests"].flatMap((room) => sources(join(ROOT, room))).map((f) => relative(ROOT, f)).filter((f) => f !== relative(ROOT, __filename));
    const text = (f: string) => readFileSync(join(ROOT, f), "utf8");
    expect(files.filter((f) => f !== "scripts/migrations.ts" && /"migrations",\s*"apply"|migrations apply/.test(text(f)))).toEqual([]);
    expect(files.filter((f) => f !== "tests/api/setup.ts" && /applyD1Migrations\(/.test(text(f)))).toEqual([]);
    expect(text("scripts/lib.ts")).toContain("migrationsApply(");
    expect(text("tests/bench/lib.ts")).toContain("migrationsApply(");
  });

  it("the money settings' keys and defaults are written once, in worker/domain/money/settings.ts", () => {
    const keys = /"(deposits\.four_eyes_micro|promotions\.four_eyes_micro|binding\.wait_hours)"/;
    const files = ["worker", "durable-objects", "app", "scripts"].flatMap((room) => sources(join(ROOT, room))).map((f) => relative(ROOT, f));
    const text = (f: string) => readFileSync(join(ROOT, f), "utf8");
    expect(files.filter((f) => f !== "worker/domain/money/settings.ts" && keys.test(text(f)))).toEqual([]);
    // The seed opens the withdrawal channels with the module's terms, and an unset channel reads as its default.
    expect(text("scripts/seed-demo.ts")).toMatch(/setRule\(db, null, "trc20", SEEDED_WITHDRAWAL_RULES\.trc20/);
    expect(text("worker/domain/withdrawals/withdrawals.ts")).toContain("WITHDRAWAL_RULE_UNSET");
    expect(text("worker/domain/money/settings.ts")).toMatch(keys);
  });
});
