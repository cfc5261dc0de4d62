import { count, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { audit_log, operators } from "../../db/schema";

import type { AuditAction } from "./actions";

export type AuditEntry = { operator_id: number; action: AuditAction; target?: string; reason?: string; data?: unknown };

/**
 * The insert for one audit entry. Operator actions put it in the same D1 batch as the change
 * they record, so an action without its audit entry cannot exist.
 */
export function auditInsert(db: Db, entry: AuditEntry, now_ms: number) {
  return db.insert(audit_log).values({
    operator_id: entry.operator_id,
    action: entry.action,
    target: entry.target ?? "",
    reason: entry.reason ?? "",
    data_json: JSON.stringify(entry.data ?? {}),
    created_at_ms: now_ms,
  });
}

export async function listAudit(db: Db, opts: { page: number; rows: number; action?: string }) {
  // A prefix match in which % and _ are the characters themselves (action names contain "_").
  const where = opts.action ? sql`${audit_log.action} LIKE ${`${opts.action.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`} ESCAPE '\\'` : undefined;
  const items = await db
    .select({
      id: audit_log.id,
      operator: operators.account,
      action: audit_log.action,
      target: audit_log.target,
      reason: audit_log.reason,
      data_json: audit_log.data_json,
      created_at_ms: audit_log.created_at_ms,
    })
    .from(audit_log)
    .leftJoin(operators, eq(operators.id, audit_log.operator_id))
    .where(where)
    .orderBy(desc(audit_log.id))
    .limit(opts.rows)
    .offset((opts.page - 1) * opts.rows);
  const [{ total }] = await db.select({ total: count() }).from(audit_log).where(where);
  return { items, total };
}

