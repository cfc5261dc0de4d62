import { sql } from "drizzle-orm";
import { check, integer, type SQLiteColumn } from "drizzle-orm/sqlite-core";

/**
 * Columns of a setting that needs two operators (worker/domain/audit/second-operator.ts): it is
 * open (`enabled`) only if nobody set it (the demo seed: `terms_by` null) or someone other than
 * the operator who set it opened it. Used by deposit channels, pool products and miner plans.
 */
export function secondOperatorColumns() {
  return {
    enabled: integer("enabled").notNull().default(1),
    /** The operator who last set what decides where money goes or what is paid. */
    terms_by: integer("terms_by"),
    /** The different operator who opened it after that. */
    opened_by: integer("opened_by"),
  };
}

/** The same rule in the database, so no code path can open what one person alone set. */
export function secondOperatorCheck(name: string, t: { enabled: SQLiteColumn; terms_by: SQLiteColumn; opened_by: SQLiteColumn }) {
  return check(name, sql`${t.enabled} = 0 OR ${t.terms_by} IS NULL OR (${t.opened_by} IS NOT NULL AND ${t.opened_by} <> ${t.terms_by})`);
}
