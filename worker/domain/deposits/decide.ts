/**
 * Operators' decisions on deposits. The credit is what the operator verified (on chain or on
 * the bank statement), never what the user typed. One operator alone credits at most what the
 * user claimed, below the four-eyes threshold and within the rolling 24 h totals of solo credits
 * (four-eyes.ts, `waitReasons`); otherwise a first operator only records the verification
 * (`confirming`, nothing credited, `wait_reason` says why) and a second, different operator
 * repeating the same amount and reference completes it. The database's CHECKs
 * (`deposits_four_eyes`, `deposits_large_needs_two`) and trigger (`deposits_solo_credit`) are the
 * final word on that rule.
 */
import { and, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { deposits } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { platformAccount, userAccount } from "../ledger/accounts";
import { transitionInsert } from "../ledger/transitions";
import { postTransfers, type MoneyFailure, type Transfer } from "../ledger/transfer";
import type { Deposit } from "./deposits";
import { getFourEyesThreshold, getSoloLimits, soloTotals, waitReasons, type WaitReason } from "./four-eyes";
import { refusedBy } from "../../db/refusal";
import { notificationInsert } from "../notifications/notify";

/** What the operator verified: the amount that arrived and the transaction or statement reference. */
export type Verification = { amount_micro: number; tx_ref: string };

export type FourEyesFailure = "four_eyes_same_operator" | "four_eyes_mismatch" | "four_eyes_required";

export type DecideResult = { status: "ok"; deposit: Deposit } | { status: "not_found" } | { status: MoneyFailure | FourEyesFailure };

/** The named refusals of the deposit CHECKs, when a batch breaks one. */
const DEPOSIT_REFUSALS = [
  ["deposits_four_eyes", "four_eyes_same_operator"],
  ["deposits_large_needs_two", "four_eyes_required"],
  ["deposits_solo_above_claim", "four_eyes_required"],
  ["deposits_solo_operator_total", "four_eyes_required"],
  ["deposits_solo_user_total", "four_eyes_required"],
] as const;

/** One batch: the caller's guard, update and audit, plus the credit when there is one. */
async function commit(db: Db, id: number, transfers: Transfer[], alongside: BatchItem<"sqlite">[], now_ms: number): Promise<DecideResult> {
  let r;
  try {
    r = await postTransfers(db, transfers, alongside, now_ms);
  } catch (err) {
    const failure = refusedBy(err, DEPOSIT_REFUSALS);
    if (failure) return { status: failure };
    throw err;
  }
  if (r.status !== "ok") return r;
  return { status: "ok", deposit: (await db.query.deposits.findFirst({ where: eq(deposits.id, id) }))! };
}

function credit(d: Deposit, amount_micro: number): Transfer {
  return { key: `deposit:${d.id}:credit`, debit: platformAccount("deposits"), credit: userAccount(d.user_id, "available"), amount_micro, code: "deposit", ref_type: "deposit", ref_id: String(d.id) };
}

/** The user's notice of the decision, in the decision's batch; keyed by the deposit, so a replay adds none. */
function depositNotice(db: Db, d: Deposit, outcome: "credited" | "rejected", amount_micro: number, now_ms: number) {
  return notificationInsert(db, { user_id: d.user_id, kind: `deposit_${outcome}`, params: { deposit_id: d.id, amount_micro: String(amount_micro) }, dedupe_key: `deposit:${d.id}:${outcome}`, now_ms });
}

/** What the audit log keeps of a decision: the claim next to the verified credit. */
function auditData(d: Deposit, extra: Record<string, unknown>) {
  return { user_id: d.user_id, address: d.address, claimed_micro: d.amount_micro, ...extra };
}

/**
 * Approves a deposit under review, or confirms one that a first operator verified. When one
 * operator may credit it alone: review → approved with the credit, one batch. Otherwise:
 * review → confirming with the reasons, nothing credited; then confirming → approved by another
 * operator. Two solo approvals racing past a rolling total are settled by the trigger: the one
 * it refuses is recorded as waiting instead.
 */
export async function approveDeposit(db: Db, operator_id: number, id: number, v: Verification, now_ms: number): Promise<DecideResult> {
  const d = await db.query.deposits.findFirst({ where: eq(deposits.id, id) });
  if (!d) return { status: "not_found" };
  if (d.status === "confirming") return confirmDeposit(db, operator_id, d, v, now_ms);
  const threshold = await getFourEyesThreshold(db);
  const reasonsNow = async () => {
    const [limits, totals] = await Promise.all([getSoloLimits(db), soloTotals(db, operator_id, d.user_id, now_ms)]);
    return waitReasons({ credited_micro: v.amount_micro, claimed_micro: d.amount_micro, threshold_micro: threshold, limits, ...totals });
  };
  const reasons = await reasonsNow();
  const first = await firstApproval(db, operator_id, d, v, threshold, reasons, now_ms);
  if (first.status !== "four_eyes_required" || reasons.length > 0) return first;
  // Another solo approval took the room left in a rolling total between our read and our write.
  const again = await reasonsNow();
  return firstApproval(db, operator_id, d, v, threshold, again.length > 0 ? again : ["operator_daily_total"], now_ms);
}

async function firstApproval(db: Db, operator_id: number, d: Deposit, v: Verification, threshold: number, reasons: WaitReason[], now_ms: number): Promise<DecideResult> {
  const id = d.id;
  const wait = reasons.length > 0;
  const to = wait ? "confirming" : "approved";
  const set = { status: to, credited_micro: v.amount_micro, tx_ref: v.tx_ref, approved_by: operator_id, four_eyes_micro: threshold, wait_reason: reasons.join(","), ...(wait ? {} : { decided_at_ms: now_ms }) } as const;
  const data = auditData(d, { credited_micro: v.amount_micro, tx_ref: v.tx_ref, four_eyes_micro: threshold, wait_reasons: reasons });
  return commit(
    db,
    id,
    wait ? [] : [credit(d, v.amount_micro)],
    [
      transitionInsert(db, { entity: "deposit", id, from: "review", to, actor_kind: "operator", actor_id: operator_id, reason: reasons.join(",") }, now_ms),
      db.update(deposits).set(set).where(and(eq(deposits.id, id), eq(deposits.status, "review"))),
      auditInsert(db, { operator_id, action: wait ? "deposit.approve_first" : "deposit.approve", target: `deposit:${id}`, data }, now_ms),
      // A first approval that waits credits nothing yet: the user hears at the confirmation.
      ...(wait ? [] : [depositNotice(db, d, "credited", v.amount_micro, now_ms)]),
    ],
    now_ms,
  );
}

/**
 * The second pair of eyes: a different operator who verified the same amount and reference.
 * The credit is the amount recorded at the first approval (it cannot change while confirming).
 */
async function confirmDeposit(db: Db, operator_id: number, d: Deposit, v: Verification, now_ms: number): Promise<DecideResult> {
  if (d.approved_by === operator_id) return { status: "four_eyes_same_operator" };
  if (d.credited_micro !== v.amount_micro || d.tx_ref !== v.tx_ref) return { status: "four_eyes_mismatch" };
  const data = auditData(d, { credited_micro: v.amount_micro, tx_ref: d.tx_ref, first_operator_id: d.approved_by });
  return commit(
    db,
    d.id,
    [credit(d, v.amount_micro)],
    [
      transitionInsert(db, { entity: "deposit", id: d.id, from: "confirming", to: "approved", actor_kind: "operator", actor_id: operator_id }, now_ms),
      // No condition on approved_by here: a same-operator confirm must FAIL the CHECK (and
      // roll the credit back), not quietly update nothing while the transfer goes through.
      db.update(deposits).set({ status: "approved", confirmed_by: operator_id, decided_at_ms: now_ms }).where(and(eq(deposits.id, d.id), eq(deposits.status, "confirming"))),
      auditInsert(db, { operator_id, action: "deposit.confirm", target: `deposit:${d.id}`, data }, now_ms),
      depositNotice(db, d, "credited", v.amount_micro, now_ms),
    ],
    now_ms,
  );
}

/** Refuses a deposit under review or waiting for its second operator; nothing was credited. */
export async function rejectDeposit(db: Db, operator_id: number, id: number, reason: string, now_ms: number): Promise<DecideResult> {
  const d = await db.query.deposits.findFirst({ where: eq(deposits.id, id) });
  if (!d) return { status: "not_found" };
  // Any other state fails the guard below (state_conflict).
  const from = d.status === "confirming" ? "confirming" : "review";
  return commit(
    db,
    id,
    [],
    [
      transitionInsert(db, { entity: "deposit", id, from, to: "rejected", actor_kind: "operator", actor_id: operator_id, reason }, now_ms),
      db.update(deposits).set({ status: "rejected", reason, decided_at_ms: now_ms }).where(and(eq(deposits.id, id), eq(deposits.status, from))),
      auditInsert(db, { operator_id, action: "deposit.reject", target: `deposit:${id}`, reason, data: auditData(d, { credited_micro: d.credited_micro, tx_ref: d.tx_ref }) }, now_ms),
      depositNotice(db, d, "rejected", d.amount_micro, now_ms),
    ],
    now_ms,
  );
}
