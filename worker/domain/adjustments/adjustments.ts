import { and, desc, eq, getTableColumns, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";
import { adjustments, operators, users } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { platformAccount, userAccount } from "../ledger/accounts";
import { transitionInsert } from "../ledger/transitions";
import { postTransfers, type MoneyFailure } from "../ledger/transfer";

export type Adjustment = typeof adjustments.$inferSelect;

/**
 * Balance corrections, four-eyes: one operator proposes (nothing moves), a different operator
 * approves, and only then one visible transfer moves money between the user's available
 * account and platform:adjustments. A debit can never overdraw the user.
 */
export async function proposeAdjustment(
  db: Db,
  operator_id: number,
  input: { user_id: number; direction: "credit" | "debit"; amount_micro: number; reason: string },
  now_ms: number,
): Promise<{ status: "ok"; adjustment: Adjustment } | { status: "user_unknown" }> {
  if (!(await db.query.users.findFirst({ where: eq(users.id, input.user_id), columns: { id: true } }))) return { status: "user_unknown" };
  const [[adjustment]] = await db.batch([
    db.insert(adjustments).values({ ...input, status: "pending", requested_by: operator_id, created_at_ms: now_ms }).returning(),
    auditInsert(db, { operator_id, action: "adjustment.propose", target: `user:${input.user_id}`, reason: input.reason, data: { direction: input.direction, amount_micro: input.amount_micro } }, now_ms),
  ]);
  return { status: "ok", adjustment };
}

export type DecideResult = { status: "ok"; adjustment: Adjustment } | { status: "not_found" } | { status: MoneyFailure };

export async function approveAdjustment(db: Db, operator_id: number, id: number, now_ms: number): Promise<DecideResult> {
  const a = await db.query.adjustments.findFirst({ where: eq(adjustments.id, id) });
  if (!a) return { status: "not_found" };
  if (a.requested_by === operator_id) return { status: "four_eyes" };
  const user = userAccount(a.user_id, "available");
  const platform = platformAccount("adjustments");
  const r = await postTransfers(
    db,
    [{ key: `adjustment:${id}`, debit: a.direction === "credit" ? platform : user, credit: a.direction === "credit" ? user : platform, amount_micro: a.amount_micro, code: `adjustment_${a.direction}`, ref_type: "adjustment", ref_id: String(id) }],
    [
      transitionInsert(db, { entity: "adjustment", id, from: "pending", to: "approved", actor_kind: "operator", actor_id: operator_id, reason: a.reason }, now_ms),
      db.update(adjustments).set({ status: "approved", decided_by: operator_id, decided_at_ms: now_ms }).where(and(eq(adjustments.id, id), eq(adjustments.status, "pending"))),
      auditInsert(db, { operator_id, action: "adjustment.approve", target: `adjustment:${id}`, reason: a.reason, data: { user_id: a.user_id, direction: a.direction, amount_micro: a.amount_micro } }, now_ms),
    ],
    now_ms,
  );
  if (r.status !== "ok") return r;
  return { status: "ok", adjustment: (await db.query.adjustments.findFirst({ where: eq(adjustments.id, id) }))! };
}

export async function rejectAdjustment(db: Db, operator_id: number, id: number, reason: string, now_ms: number): Promise<DecideResult> {
  const a = await db.query.adjustments.findFirst({ where: eq(adjustments.id, id) });
  if (!a) return { status: "not_found" };
  const r = await postTransfers(
    db,
    [],
    [
      transitionInsert(db, { entity: "adjustment", id, from: "pending", to: "rejected", actor_kind: "operator", actor_id: operator_id, reason }, now_ms),
      db.update(adjustments).set({ status: "rejected", decided_by: operator_id, decided_at_ms: now_ms }).where(and(eq(adjustments.id, id), eq(adjustments.status, "pending"))),
      auditInsert(db, { operator_id, action: "adjustment.reject", target: `adjustment:${id}`, reason }, now_ms),
    ],
    now_ms,
  );
  if (r.status !== "ok") return r;
  return { status: "ok", adjustment: (await db.query.adjustments.findFirst({ where: eq(adjustments.id, id) }))! };
}

/**
 * Proposals with the names of who proposed and who decided (operators act under their names),
 * newest first, one page, optionally one user's; `total` counts them all.
 */
export async function listAdjustments(db: Db, q: { status: Adjustment["status"] | "all"; user_id?: number; page_no: number; row: number }) {
  const proposer = alias(operators, "proposer");
  const decider = alias(operators, "decider");
  const where = and(q.status === "all" ? undefined : eq(adjustments.status, q.status), q.user_id === undefined ? undefined : eq(adjustments.user_id, q.user_id));
  // Not one db.batch: D1 batch answers rows as objects, and the two aliased `account` columns
  // would collide (drizzle reads single queries as arrays).
  const [items, [{ total }]] = await Promise.all([
    db
      .select({ ...getTableColumns(adjustments), requested_by_account: proposer.account, decided_by_account: decider.account })
      .from(adjustments)
      .leftJoin(proposer, eq(proposer.id, adjustments.requested_by))
      .leftJoin(decider, eq(decider.id, adjustments.decided_by))
      .where(where)
      .orderBy(desc(adjustments.id))
      .limit(q.row)
      .offset((q.page_no - 1) * q.row),
    db.select({ total: sql<number>`count(*)` }).from(adjustments).where(where),
  ]);
  return { items, total };
}
