/**
 * Terms need two people. A change to what a market promises its orders (fee, exposure limit,
 * trading hours, durations with payout rates and stakes) or what a withdrawal channel charges
 * (fees, minimum) is proposed by one operator and opened by a different one (open.ts); until
 * then the old terms stand. A proposal keeps the terms in force when it was made (`before`) and
 * their version, so the opener sees exactly what changes and cannot open it over a change made
 * since. Anyone may decline a pending proposal (its proposer withdraws it the same way), with a
 * reason; decided proposals are frozen and never deleted (triggers).
 */
import type { AuditAction } from "../audit/actions";
import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { audit_log, terms_proposals } from "../../db/schema";
import { auditInsert } from "../audit/log";
import type { MarketTerms, WithdrawalTerms } from "./bounds";

export type Proposal = typeof terms_proposals.$inferSelect;
export type ProposalKind = Proposal["kind"];

export type ProposalSpec =
  | { kind: "market"; target: string; terms: MarketTerms & Record<string, unknown>; before: MarketTerms | null; base_version: number }
  | { kind: "withdrawal"; target: "trc20" | "bank"; terms: WithdrawalTerms; before: WithdrawalTerms | null; base_version: number };

export async function proposeTerms(db: Db, operator_id: number, spec: ProposalSpec, reason: string, now_ms: number): Promise<Proposal> {
  const [[row]] = await db.batch([
    db
      .insert(terms_proposals)
      .values({
        kind: spec.kind,
        target: spec.target,
        terms_json: JSON.stringify(spec.terms),
        before_json: spec.before === null ? null : JSON.stringify(spec.before),
        base_version: spec.base_version,
        reason,
        proposed_by: operator_id,
        proposed_at_ms: now_ms,
        status: "pending",
      })
      .returning(),
    auditInsert(db, { operator_id, action: "terms.propose", target: `${spec.kind}:${spec.target}`, reason, data: { before: spec.before, after: spec.terms, base_version: spec.base_version } }, now_ms),
  ]);
  return row;
}

export type ProposalView = Proposal & { proposed_by_account: string | null; decided_by_account: string | null };

/** Proposals, newest first: pending ones (the default) or all, of one kind or target if given. */
export async function listProposals(db: Db, opts: { status?: "pending" | "all"; kind?: ProposalKind; target?: string; limit?: number } = {}): Promise<ProposalView[]> {
  const where = and(
    opts.status === "all" ? undefined : eq(terms_proposals.status, "pending"),
    opts.kind ? eq(terms_proposals.kind, opts.kind) : undefined,
    opts.target ? eq(terms_proposals.target, opts.target) : undefined,
  );
  const rows = await db
    .select({ p: terms_proposals, proposed_by_account: sql<string | null>`(SELECT account FROM operators WHERE id = ${terms_proposals.proposed_by})`, decided_by_account: sql<string | null>`(SELECT account FROM operators WHERE id = ${terms_proposals.decided_by})` })
    .from(terms_proposals)
    .where(where)
    .orderBy(desc(terms_proposals.id))
    .limit(opts.limit ?? 100);
  return rows.map((r) => ({ ...r.p, proposed_by_account: r.proposed_by_account, decided_by_account: r.decided_by_account }));
}

export async function getProposal(db: Db, id: number): Promise<Proposal | null> {
  return (await db.query.terms_proposals.findFirst({ where: eq(terms_proposals.id, id) })) ?? null;
}

/**
 * The audit entry that guards a decision: its operator id is found only while `condition`
 * holds, otherwise it is NULL, the NOT NULL constraint fails and nothing of the batch is
 * written (the same idea as the transition records of money states).
 */
export function guardedAudit(db: Db, entry: { operator_id: number; action: AuditAction; target: string; reason?: string; data?: unknown }, condition: SQL, now_ms: number) {
  return db.insert(audit_log).values({
    operator_id: sql`(SELECT ${entry.operator_id} WHERE ${condition})` as unknown as number,
    action: entry.action,
    target: entry.target,
    reason: entry.reason ?? "",
    data_json: JSON.stringify(entry.data ?? {}),
    created_at_ms: now_ms,
  });
}

/** True when a batch was refused by a guard of guardedAudit. */
export function guardRefused(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (String((e as { message?: unknown }).message ?? "").includes("NOT NULL constraint failed: audit_log.operator_id")) return true;
  }
  return false;
}

export const pendingCondition = (id: number) => sql`EXISTS (SELECT 1 FROM terms_proposals WHERE id = ${id} AND status = 'pending')`;

export type DeclineResult = { status: "ok"; proposal: Proposal } | { status: "not_found" | "state_conflict" };

/** Declines (or, by its proposer, withdraws) a pending proposal; the terms in force stay. */
export async function declineProposal(db: Db, operator_id: number, id: number, reason: string, now_ms: number): Promise<DeclineResult> {
  const p = await getProposal(db, id);
  if (!p) return { status: "not_found" };
  if (p.status !== "pending") return { status: "state_conflict" };
  try {
    const [, [row]] = await db.batch([
      guardedAudit(db, { operator_id, action: "terms.decline", target: `${p.kind}:${p.target}`, reason, data: { proposal_id: id } }, pendingCondition(id), now_ms),
      db.update(terms_proposals).set({ status: "declined", decided_by: operator_id, decided_at_ms: now_ms, decline_reason: reason }).where(and(eq(terms_proposals.id, id), eq(terms_proposals.status, "pending"))).returning(),
    ]);
    return { status: "ok", proposal: row };
  } catch (err) {
    if (guardRefused(err)) return { status: "state_conflict" };
    throw err;
  }
}
