import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { app_config } from "../../db/schema";

/**
 * Which money a database holds: "demo" (a demo deployment's) or "real" (every other). Stamped in
 * `app_config` the first time a deployment serves from it, and checked by every later one: a
 * database that held demo money never runs with real money, nor the other way round (decision
 * 122). A database from before the stamp that already holds demo grants is a demo database.
 */
export type MoneyKind = "demo" | "real";
export const MONEY_MODE_KEY = "money_mode";

export type MoneyModeCheck = { status: "ok" } | { status: "mismatch"; held: MoneyKind };

export async function checkMoneyMode(db: Db, expected: MoneyKind, now_ms: number): Promise<MoneyModeCheck> {
  let held = await stamped(db);
  if (held === null) {
    const [{ grants }] = await db.all<{ grants: number }>(sql`SELECT EXISTS (SELECT 1 FROM ledger_transfers WHERE code = 'demo_grant') AS grants`);
    const kind: MoneyKind = grants ? "demo" : expected;
    // Two first requests at once stamp the same kind; the first write stands.
    await db.insert(app_config).values({ key: MONEY_MODE_KEY, value: kind, updated_at_ms: now_ms }).onConflictDoNothing();
    held = (await stamped(db)) ?? kind;
  }
  return held === expected ? { status: "ok" } : { status: "mismatch", held };
}

async function stamped(db: Db): Promise<MoneyKind | null> {
  const row = await db.query.app_config.findFirst({ where: eq(app_config.key, MONEY_MODE_KEY) });
  return row?.value === "demo" || row?.value === "real" ? row.value : null;
}
