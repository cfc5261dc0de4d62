import { is, Placeholder, sql, SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { createTableRelationsHelpers, extractTablesRelationalConfig } from "drizzle-orm/relations";
import { DrizzleD1Database, type drizzle } from "drizzle-orm/d1";
import { SQLiteD1Session } from "drizzle-orm/d1/session";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core/dialect";
import { RelationalQueryBuilder } from "drizzle-orm/sqlite-core/query-builders/query";
import * as schema from "./schema";

/**
 * The schema's relational config, worked out once per isolate. `drizzle(d1, { schema })` works
 * it out on every call and builds a query builder for each of the ~60 tables, about 0.1 ms of
 * CPU, and every request and object call opens a view of the database. This builds the same
 * object as `drizzle()` (drizzle-orm/d1/driver) from the config computed once, with each
 * table's `db.query.<table>` builder made on its first use.
 */
const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
const relational = { fullSchema: schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap };
const dialect = new SQLiteAsyncDialect({});
const SESSION = Symbol("session");
const lazyQueries: object = {};
for (const [name, config] of Object.entries(tables.tables)) {
  Object.defineProperty(lazyQueries, name, {
    get(this: { [SESSION]: unknown }) {
      const q = new RelationalQueryBuilder("async", schema, tables.tables, tables.tableNamesMap, schema[name as keyof typeof schema] as never, config, dialect, this[SESSION] as never);
      Object.defineProperty(this, name, { value: q });
      return q;
    },
  });
}

type DrizzleDb = ReturnType<typeof drizzle<typeof schema, D1Database>>;

/**
 * One view per database object: the Worker's env.DB is the same object for the isolate's life,
 * so it is looked up by identity (a proxy over it is another object, with a view of its own). A
 * counted view (db/limits.ts, one per invocation under tests and benches) marks itself with
 * `KEEPS_VIEW` and keeps its view on itself, so it is dropped with it: a WeakMap of thousands of
 * short-lived keys a second cost more in garbage collection than it saved.
 */
export const KEEPS_VIEW = Symbol("keeps its drizzle view");
const VIEW = Symbol("drizzle view");
const views = new WeakMap<D1Database, DrizzleDb>();

export function getDb(d1: D1Database): DrizzleDb {
  const own = Object.hasOwn(d1, KEEPS_VIEW);
  const known = own ? (d1 as { [VIEW]?: DrizzleDb })[VIEW] : views.get(d1);
  if (known) return known;
  const session = new SQLiteD1Session(d1, dialect, relational as never, {});
  const db = new DrizzleD1Database("async", dialect, session as never, undefined) as unknown as DrizzleDb;
  Object.assign(db, { _: relational, query: Object.assign(Object.create(lazyQueries), { [SESSION]: session }), $client: d1 });
  if (own) (d1 as { [VIEW]?: DrizzleDb })[VIEW] = db;
  else views.set(d1, db);
  return db;
}
export type Db = ReturnType<typeof getDb>;

/**
 * The database of a request, made on first use: a request that never touches it (`/api/health`,
 * an order, whose hub holds what it needs) never builds a view. Under D1_LIMITS each invocation
 * has its own counted database object, so its view is new each time.
 */
export function lazyDb(d1: () => D1Database): Db {
  let view: Db | undefined;
  const real = () => (view ??= getDb(d1()));
  return new Proxy(Object.create(DrizzleD1Database.prototype) as Db, {
    get(_target, prop) {
      const r = real();
      const value = Reflect.get(r, prop, r) as unknown;
      return typeof value === "function" && prop !== "constructor" ? (value as (...a: unknown[]) => unknown).bind(r) : value;
    },
    has: (_target, prop) => Reflect.has(real(), prop),
  });
}
export { schema };

type Query = { sql: string; params: unknown[] };

/**
 * Field `i` of a row in a set statement's JSON parameter (`json_each(...)`): the one way the set
 * statements read their rows. `row` is the json_each value's name in the statement (`value`,
 * or `j.value` under an alias).
 */
export const jsonAt = (i: number, row: "value" | "j.value" = "value") => sql.raw(`json_extract(${row}, '$[${i}]')`);

/**
 * A statement whose SQL text was rendered once (`fixedStatement`) and is bound at each use. The
 * hot set statements (an order group's, settlement's transfers) have a text that never changes:
 * drizzle rendered it from its template on every call, chunk by chunk (decision 168).
 */
export class FixedStatement {
  constructor(
    readonly text: string,
    readonly params: readonly unknown[],
  ) {}
}

/**
 * Renders `query` once; each `sql.placeholder(...)` in it becomes a `?`, bound in order from the
 * values given to the returned function. A value written into the template itself would be
 * bound again at every later use, so only placeholders are allowed.
 */
export function fixedStatement(query: SQL): (...values: unknown[]) => FixedStatement {
  const { sql: text, params } = dialect.sqlToQuery(query);
  if (!params.every((p) => is(p, Placeholder))) throw new Error("fixedStatement: a template may bind placeholders only");
  return (...values) => {
    if (values.length !== params.length) throw new Error(`fixedStatement: ${params.length} values wanted, ${values.length} given`);
    return new FixedStatement(text, values);
  };
}

type Buildable = SQL | BatchItem<"sqlite"> | FixedStatement;

/**
 * Drizzle queries and raw SQL as D1 statements, for `db.$client.batch`: drizzle's own D1 batch
 * refuses raw SQL that has parameters, and the ledger's statements are raw SQL. Rows come back
 * as D1 gives them (our columns and fields share their snake_case names).
 */
export function d1Statements(db: Db, items: readonly Buildable[]): D1PreparedStatement[] {
  return items.map((item) => {
    if (item instanceof FixedStatement) return db.$client.prepare(item.text).bind(...item.params);
    const q: Query = is(item, SQL)
      ? db.all(item).getQuery()
      : "toSQL" in item
        ? (item as { toSQL(): Query }).toSQL()
        : (item as unknown as { getQuery(): Query }).getQuery();
    return db.$client.prepare(q.sql).bind(...q.params);
  });
}
