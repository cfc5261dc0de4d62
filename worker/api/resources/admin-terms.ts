/**
 * `/api/admin/terms/*`: proposals of new terms (decision 121). A market's save or a withdrawal
 * channel's save proposes; a different operator opens here; anyone declines with a reason.
 * Opening a market's terms tells its hub at once (an order at the old terms is then refused).
 */
import { Hono } from "hono";
import { z } from "zod";
import { formatAmount, formatPercentText } from "../../domain/money/units";
import type { DurationTerms, MarketTerms, WithdrawalTerms } from "../../domain/terms/bounds";
import { openProposal } from "../../domain/terms/open";
import { declineProposal, listProposals, type ProposalView } from "../../domain/terms/proposals";
import { requireOperator } from "../middleware/auth";
import { hubConfig, hubStub } from "../../quotes";
import { ApiError, ok, read } from "../envelope";
import { optionalText, pathId, text } from "../fields";
import type { AppEnv } from "../types";
import { termsFailure } from "./terms-errors";

/** One line of a proposal: a term's value before (null: new) and after, as plain text. */
export type TermChange = { field: string; before: string | null; after: string };

const durationText = (d: DurationTerms) => `${d.seconds} s · ${formatPercentText(d.profit_rate_bp)} % · ${formatAmount(d.min_stake_micro)}–${formatAmount(d.max_stake_micro)}`;

function marketLines(t: MarketTerms): Record<string, string> {
  return {
    fee_rate: `${formatPercentText(t.fee_rate_bp)} %`,
    exposure_limit: formatAmount(t.exposure_limit_micro),
    trading_hours: t.trading_hours,
    durations: t.durations.map(durationText).join("; "),
  };
}

function withdrawalLines(t: WithdrawalTerms): Record<string, string> {
  return { fee_fixed: formatAmount(t.fee_fixed_micro), fee_rate: `${formatPercentText(t.fee_rate_bp)} %`, min_amount: formatAmount(t.min_amount_micro) };
}

/** What opening it would change, term by term (a new market lists every term). */
export function changesOf(p: Pick<ProposalView, "kind" | "terms_json" | "before_json">): TermChange[] {
  const lines = p.kind === "market" ? marketLines : withdrawalLines;
  const after = lines(JSON.parse(p.terms_json));
  const before = p.before_json === null ? null : lines(JSON.parse(p.before_json));
  return Object.entries(after)
    .filter(([field, value]) => before === null || before[field] !== value)
    .map(([field, value]) => ({ field, before: before?.[field] ?? null, after: value }));
}

export function proposalOut(p: ProposalView) {
  return {
    id: p.id,
    kind: p.kind,
    target: p.target,
    status: p.status,
    base_version: p.base_version,
    opened_version: p.opened_version,
    reason: p.reason,
    proposed_by: p.proposed_by,
    proposed_by_account: p.proposed_by_account,
    proposed_at: p.proposed_at_ms,
    decided_by_account: p.decided_by_account,
    decided_at: p.decided_at_ms,
    decline_reason: p.decline_reason,
    new_market: p.kind === "market" && p.before_json === null,
    changes: changesOf(p),
  };
}


export const adminTermsApi = new Hono<AppEnv>()
  .use("*", requireOperator)
  .on(["GET", "POST"], "/terms/proposals", async (c) => {
    const q = read(c, z.object({ status: z.enum(["pending", "all"], { error: "errors.invalid_field" }).default("pending"), kind: z.enum(["market", "withdrawal"], { error: "errors.invalid_field" }).optional(), target: optionalText(20).optional() }));
    const rows = await listProposals(c.get("db"), { status: q.status, kind: q.kind, target: q.target || undefined });
    return ok(c, rows.map(proposalOut));
  })
  .post("/terms/proposals/:id/open", async (c) => {
    const r = await openProposal(c.get("db"), c.get("operator").id, pathId(c.req.param("id")), Date.now());
    if (r.status !== "ok") throw termsFailure(r);
    // The symbol's hub takes the new terms now (it would re-read them within seconds anyway).
    if (r.product) await hubStub(c.env, r.product.symbol).reload(hubConfig(r.product));
    return ok(c, { id: r.proposal.id, version: r.proposal.opened_version, product_id: r.product?.id ?? null }, "errors.terms_opened");
  })
  .post("/terms/proposals/:id/decline", async (c) => {
    const { reason } = read(c, z.object({ reason: text({ max: 500, invalid: "errors.reason_required" }) }));
    const r = await declineProposal(c.get("db"), c.get("operator").id, pathId(c.req.param("id")), reason, Date.now());
    if (r.status !== "ok") throw termsFailure(r);
    return ok(c, { id: r.proposal.id }, "errors.terms_declined");
  });
