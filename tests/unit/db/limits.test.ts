import { describe, expect, it, vi } from "vitest";
import { D1_LIMITS, D1LimitError, invocationDb, limitD1, withInvocationDb } from "../../../worker/db/limits";

/**
 * A stand-in for the D1 binding: it records what reached it, so a test can tell a statement the
 * view refused (never sent) from one it passed through. Only what the view calls is modelled.
 */
function fakeD1() {
  const sent: { sql: string; params: unknown[] }[] = [];
  const batches: number[] = [];
  const statement = (sql: string, params: unknown[] = []): D1PreparedStatement =>
    ({
      bind: (...values: unknown[]) => statement(sql, values),
      first: async () => (sent.push({ sql, params }), null),
      run: async () => (sent.push({ sql, params }), { success: true, results: [], meta: {} }),
      all: async () => (sent.push({ sql, params }), { success: true, results: [], meta: {} }),
      raw: async () => (sent.push({ sql, params }), []),
      sql,
    }) as unknown as D1PreparedStatement;
  const d1 = {
    prepare: (sql: string) => statement(sql),
    batch: async (statements: D1PreparedStatement[]) => {
      batches.push(statements.length);
      // The real binding needs its own statements back, not the view's wrappers.
      for (const s of statements) expect((s as unknown as { sql?: string }).sql, "batch got a wrapper").toBeTypeOf("string");
      return statements.map(() => ({ success: true, results: [], meta: {} }));
    },
    exec: async (sql: string) => ({ count: sql.split(";").length, duration: 0 }),
    dump: async () => new ArrayBuffer(0),
    withSession: () => d1,
  };
  return { d1: d1 as unknown as D1Database, sent, batches };
}

const enforce = (d1: D1Database) => ({ DB: d1, D1_LIMITS: "enforce" });

describe("D1 limits view", () => {
  it("passes 100 bound parameters and refuses 101 before anything is sent", async () => {
    const fake = fakeD1();
    const db = invocationDb(enforce(fake.d1));
    const params = (n: number) => Array.from({ length: n }, (_, i) => i);
    await db.prepare("SELECT ?").bind(...params(D1_LIMITS.params_per_statement)).all();
    expect(() => db.prepare("SELECT ?").bind(...params(D1_LIMITS.params_per_statement + 1))).toThrow(D1LimitError);
    expect(fake.sent).toHaveLength(1);
  });

  it("refuses a statement over 100 KB of SQL (bytes, not characters)", () => {
    const db = invocationDb(enforce(fakeD1().d1));
    expect(() => db.prepare(`SELECT '${"a".repeat(D1_LIMITS.statement_bytes - 9)}'`)).not.toThrow();
    expect(() => db.prepare(`SELECT '${"a".repeat(D1_LIMITS.statement_bytes)}'`)).toThrow(/bytes/);
    // 40,000 three-byte characters: 120 KB though only 40,000 characters long.
    expect(() => db.prepare(`SELECT '${"€".repeat(40_000)}'`)).toThrow(D1LimitError);
    expect(() => db.exec(`SELECT '${"a".repeat(D1_LIMITS.statement_bytes)}'`)).toThrow(D1LimitError);
  });

  it("allows 1,000 queries in one view and refuses the 1,001st", async () => {
    const fake = fakeD1();
    const db = invocationDb(enforce(fake.d1));
    for (let i = 0; i < D1_LIMITS.queries_per_invocation; i++) await db.prepare("SELECT 1").first();
    expect(() => db.prepare("SELECT 1").run()).toThrow(/1001 queries/);
    expect(fake.sent).toHaveLength(D1_LIMITS.queries_per_invocation);
  });

  it("counts each statement of a batch, and passes the real statements to D1", async () => {
    const fake = fakeD1();
    const db = invocationDb(enforce(fake.d1));
    const batch = (n: number) => db.batch(Array.from({ length: n }, (_, i) => db.prepare("INSERT INTO t VALUES (?)").bind(i)));
    await batch(600);
    await db.prepare("SELECT 1").all();
    await batch(399);
    expect(fake.batches).toEqual([600, 399]);
    expect(() => batch(1)).toThrow(D1LimitError);
    expect(fake.batches).toHaveLength(2);
  });

  it("counts every kind of execution: first, run, all, raw, exec", async () => {
    const counter = { queries: 0 };
    const counted = limitD1(fakeD1().d1, counter);
    await counted.prepare("SELECT 1").first();
    await counted.prepare("SELECT 1").run();
    await counted.prepare("SELECT 1").all();
    await counted.prepare("SELECT 1").raw();
    await counted.exec("SELECT 1; SELECT 2;");
    expect(counter.queries).toBe(6);
  });

  it("gives each invocation its own count", async () => {
    const fake = fakeD1();
    const env = enforce(fake.d1);
    const first = withInvocationDb(env);
    for (let i = 0; i < D1_LIMITS.queries_per_invocation; i++) await first.DB.prepare("SELECT 1").first();
    expect(() => first.DB.prepare("SELECT 1").first()).toThrow(D1LimitError);
    const second = withInvocationDb(env);
    await expect(second.DB.prepare("SELECT 1").first()).resolves.toBeNull();
    expect(env.DB).toBe(fake.d1); // the shared env is left as it was
  });

  it("tracks the largest count any one view reached", async () => {
    // A fresh copy of the module: its peak starts at zero, whatever the tests above did.
    vi.resetModules();
    const limits = await import("../../../worker/db/limits");
    expect(limits.peakQueries()).toBe(0);
    const run = async (n: number) => {
      const db = limits.invocationDb(enforce(fakeD1().d1));
      for (let i = 0; i < n; i++) await db.prepare("SELECT 1").first();
    };
    await run(7);
    expect(limits.peakQueries()).toBe(7);
    await run(3);
    expect(limits.peakQueries()).toBe(7);
    await run(12);
    expect(limits.peakQueries()).toBe(12);
  });

  it("leaves the database as it is without the enforce binding (production enforces itself)", () => {
    const { d1 } = fakeD1();
    expect(invocationDb({ DB: d1 })).toBe(d1);
    expect(invocationDb({ DB: d1, D1_LIMITS: "off" })).toBe(d1);
    const env = { DB: d1, other: 1 };
    expect(withInvocationDb(env)).toBe(env);
  });
});
