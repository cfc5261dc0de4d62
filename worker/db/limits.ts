/**
 * D1's production limits, held locally. Local D1 (workerd's SQLite) accepts statements that
 * production D1 refuses, so a path that works in tests could fail after deploy. With the
 * binding `D1_LIMITS = "enforce"` (tests and benches set it) every Worker invocation and every
 * Durable Object alarm or call gets its own counted view of the database that throws where
 * production would:
 * - at most 100 bound parameters per statement,
 * - at most 100 KB of SQL text per statement,
 * - at most 1,000 queries per invocation, each statement of a batch counted (the conservative
 *   reading of "queries per Worker invocation").
 * Without the binding the database is returned as it is (production enforces it itself).
 */
import { KEEPS_VIEW } from "./client";

export const D1_LIMITS = { params_per_statement: 100, statement_bytes: 100_000, queries_per_invocation: 1_000 } as const;

export class D1LimitError extends Error {
  constructor(message: string) {
    super(`D1 limit: ${message}`);
    this.name = "D1LimitError";
  }
}

/** Queries made through one counted view; `peak` is the largest count any view reached. */
export type QueryCounter = { queries: number };
const peak = { queries: 0 };

/** The largest number of queries one invocation made since this isolate started (benches read it). */
export function peakQueries(): number {
  return peak.queries;
}

type LimitEnv = { DB: D1Database; D1_LIMITS?: string };

/** The database for one invocation: counted and limited when `D1_LIMITS` is "enforce". */
export function invocationDb(env: LimitEnv): D1Database {
  return env.D1_LIMITS === "enforce" ? limitD1(env.DB, { queries: 0 }) : env.DB;
}

/** `env` with its DB replaced by a fresh counted view (one per Worker invocation). */
export function withInvocationDb<E extends LimitEnv>(env: E): E {
  return env.D1_LIMITS === "enforce" ? { ...env, DB: limitD1(env.DB, { queries: 0 }) } : env;
}

const real = new WeakMap<object, D1PreparedStatement>();

function count(counter: QueryCounter, n: number) {
  counter.queries += n;
  if (counter.queries > peak.queries) peak.queries = counter.queries;
  if (counter.queries > D1_LIMITS.queries_per_invocation) throw new D1LimitError(`${counter.queries} queries in one invocation (max ${D1_LIMITS.queries_per_invocation})`);
}

function checkSql(sql: string) {
  // UTF-8 takes at most 3 bytes per UTF-16 unit: only a text that could be too long is encoded.
  if (sql.length * 3 <= D1_LIMITS.statement_bytes) return;
  const bytes = new TextEncoder().encode(sql).length;
  if (bytes > D1_LIMITS.statement_bytes) throw new D1LimitError(`statement of ${bytes} bytes (max ${D1_LIMITS.statement_bytes})`);
}

function wrapStatement(statement: D1PreparedStatement, counter: QueryCounter): D1PreparedStatement {
  const wrapped: D1PreparedStatement = {
    bind(...values: unknown[]) {
      if (values.length > D1_LIMITS.params_per_statement) throw new D1LimitError(`${values.length} bound parameters (max ${D1_LIMITS.params_per_statement})`);
      return wrapStatement(statement.bind(...values), counter);
    },
    first(column?: string) {
      count(counter, 1);
      return column === undefined ? statement.first() : statement.first(column);
    },
    run() {
      count(counter, 1);
      return statement.run();
    },
    all() {
      count(counter, 1);
      return statement.all();
    },
    raw(options?: { columnNames?: boolean }) {
      count(counter, 1);
      return statement.raw(options as { columnNames: true });
    },
  } as D1PreparedStatement;
  real.set(wrapped, statement);
  return wrapped;
}

/** A view of `d1` that counts into `counter` and throws D1LimitError past a limit. */
export function limitD1(d1: D1Database, counter: QueryCounter): D1Database {
  const view = {
    // Its drizzle view lives and dies with it (db/client.ts getDb).
    [KEEPS_VIEW]: true,
    prepare(sql: string) {
      checkSql(sql);
      return wrapStatement(d1.prepare(sql), counter);
    },
    batch<T = unknown>(statements: D1PreparedStatement[]) {
      count(counter, statements.length);
      return d1.batch<T>(statements.map((s) => real.get(s) ?? s));
    },
    exec(sql: string) {
      checkSql(sql);
      count(counter, sql.split(";").filter((s) => s.trim()).length);
      return d1.exec(sql);
    },
    dump() {
      return d1.dump();
    },
    withSession(constraint?: string) {
      return d1.withSession(constraint);
    },
  };
  return view as unknown as D1Database;
}
