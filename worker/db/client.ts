import { is, SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export function getDb(d1: D1Database) {
  return drizzle(d1, { schema });
}
export type Db = ReturnType<typeof getDb>;
export { schema };

type Query = { sql: string; params: unknown[] };
type Buildable = SQL | BatchItem<"sqlite">;

/**
 * Drizzle queries and raw SQL as D1 statements, for `db.$client.batch`: drizzle's own D1 batch
 * refuses raw SQL that has parameters, and the ledger's statements are raw SQL. Rows come back
 * as D1 gives them (our columns and fields share their snake_case names).
 */
export function d1Statements(db: Db, items: readonly Buildable[]): D1PreparedStatement[] {
  return items.map((item) => {
    const q: Query = is(item, SQL)
      ? db.all(item).getQuery()
      : "toSQL" in item
        ? (item as { toSQL(): Query }).toSQL()
        : (item as unknown as { getQuery(): Query }).getQuery();
    return db.$client.prepare(q.sql).bind(...q.params);
  });
}
