/**
 * Opening a proposal (proposals.ts): a different operator puts the proposed terms in force with a
 * new terms version, in one batch with the proposal's decision and its audit entry. The batch is
 * guarded: it is written only while the proposal is pending and the terms it was proposed against
 * are still in force, so a proposal can never undo a change opened after it was made. The
 * database holds the rest: the proposal's CHECK (opener ≠ proposer) and the triggers on products,
 * durations and withdrawal rules (a change of terms needs a new version set by two people).
 */
import { and, eq, sql } from "drizzle-orm";
import { d1Statements, type Db } from "../../db/client";
import { products, terms_proposals, withdrawal_rules } from "../../db/schema";
import { durationStatements, tickSizeFits, type ProductInput } from "../trades/products";
import type { Product } from "../trades/products";
import { marketTermsOutOfBounds, withdrawalTermsOutOfBounds, type MarketTerms, type OutOfBounds, type WithdrawalTerms } from "./bounds";
import { getProposal, guardedAudit, guardRefused, pendingCondition, type Proposal } from "./proposals";

export type OpenResult =
  | { status: "ok"; proposal: Proposal; product: Product | null }
  | { status: "not_found" | "state_conflict" | "four_eyes_same_operator" | "terms_stale" | "tick_size_too_large" }
  | OutOfBounds;

export async function openProposal(db: Db, operator_id: number, id: number, now_ms: number): Promise<OpenResult> {
  const p = await getProposal(db, id);
  if (!p) return { status: "not_found" };
  if (p.status !== "pending") return { status: "state_conflict" };
  if (p.proposed_by === operator_id) return { status: "four_eyes_same_operator" };
  const version = p.base_version + 1;
  const decide = db
    .update(terms_proposals)
    .set({ status: "opened", decided_by: operator_id, decided_at_ms: now_ms, opened_version: version })
    .where(and(eq(terms_proposals.id, id), eq(terms_proposals.status, "pending")))
    .returning();
  const audit = (condition: ReturnType<typeof sql>) =>
    guardedAudit(db, { operator_id, action: "terms.open", target: `${p.kind}:${p.target}`, data: { proposal_id: id, proposed_by: p.proposed_by, before: p.before_json && JSON.parse(p.before_json), after: JSON.parse(p.terms_json), version } }, sql`${pendingCondition(id)} AND ${condition}`, now_ms);
  const applied = p.kind === "withdrawal" ? withdrawalStatements(db, p, operator_id, version, now_ms) : p.base_version === 0 ? newMarketStatements(db, p, operator_id) : marketStatements(db, p, operator_id, version);
  if ("status" in applied) return applied;
  try {
    const results = await db.$client.batch(d1Statements(db, [audit(applied.condition), decide, ...applied.statements]));
    const proposal = (results[1] as D1Result<Proposal>).results[0];
    const product = p.kind === "market" ? ((results[2] as D1Result<Product>).results[0] ?? null) : null;
    return { status: "ok", proposal, product };
  } catch (err) {
    if (!guardRefused(err)) throw err;
    const again = await getProposal(db, id);
    return { status: again?.status === "pending" ? "terms_stale" : "state_conflict" };
  }
}

type Applied = { condition: ReturnType<typeof sql>; statements: Parameters<typeof d1Statements>[1] } | { status: "tick_size_too_large" } | OutOfBounds;

/** New terms of an existing market: the product's terms and version, and its durations replaced. */
function marketStatements(db: Db, p: Proposal, opener: number, version: number): Applied {
  const terms = JSON.parse(p.terms_json) as MarketTerms;
  const bounds = marketTermsOutOfBounds(terms);
  if (bounds) return bounds;
  const product_id = sql`(SELECT id FROM products WHERE symbol = ${p.target})`;
  return {
    condition: sql`(SELECT terms_version FROM products WHERE symbol = ${p.target}) = ${p.base_version}`,
    statements: [
      db
        .update(products)
        .set({ fee_rate_bp: terms.fee_rate_bp, exposure_limit_micro: terms.exposure_limit_micro, trading_hours: terms.trading_hours, terms_version: version, terms_by: p.proposed_by, terms_opened_by: opener })
        .where(eq(products.symbol, p.target))
        .returning(),
      ...durationStatements(db, product_id, terms, version),
    ],
  };
}

/** A new market, as proposed: created with terms version 1. */
function newMarketStatements(db: Db, p: Proposal, opener: number): Applied {
  const m = JSON.parse(p.terms_json) as ProductInput & MarketTerms;
  const bounds = marketTermsOutOfBounds({ ...m, quote_tolerance_bp: m.quote_tolerance_bp });
  if (bounds) return bounds;
  if (!tickSizeFits(m.start_price_e8, m.tick_size_e8)) return { status: "tick_size_too_large" };
  const product_id = sql`(SELECT id FROM products WHERE symbol = ${p.target})`;
  return {
    condition: sql`NOT EXISTS (SELECT 1 FROM products WHERE symbol = ${p.target})`,
    statements: [
      db
        .insert(products)
        .values({
          symbol: p.target,
          name: m.name,
          feed_symbol: m.feed_symbol,
          start_price_e8: m.start_price_e8,
          tick_size_e8: m.tick_size_e8,
          fee_rate_bp: m.fee_rate_bp,
          quote_tolerance_bp: m.quote_tolerance_bp,
          trading_hours: m.trading_hours,
          exposure_limit_micro: m.exposure_limit_micro,
          enabled: m.enabled ? 1 : 0,
          sort: m.sort,
          terms_version: 1,
          terms_by: p.proposed_by,
          terms_opened_by: opener,
          created_at_ms: p.proposed_at_ms,
        })
        .returning(),
      ...durationStatements(db, product_id, m, 1),
    ],
  };
}

/** A withdrawal channel's new fees and minimum (the channel's open/closed switch is kept). */
function withdrawalStatements(db: Db, p: Proposal, opener: number, version: number, now_ms: number): Applied {
  const terms = JSON.parse(p.terms_json) as WithdrawalTerms;
  const bounds = withdrawalTermsOutOfBounds(terms);
  if (bounds) return bounds;
  const channel = p.target as "trc20" | "bank";
  const values = { fee_fixed_micro: terms.fee_fixed_micro, fee_rate_bp: terms.fee_rate_bp, min_amount_micro: terms.min_amount_micro, updated_at_ms: now_ms, terms_version: version, terms_by: p.proposed_by, terms_opened_by: opener };
  return {
    condition: sql`COALESCE((SELECT terms_version FROM withdrawal_rules WHERE channel = ${channel}), 0) = ${p.base_version}`,
    statements: [db.insert(withdrawal_rules).values({ channel, enabled: 1, ...values }).onConflictDoUpdate({ target: withdrawal_rules.channel, set: values })],
  };
}
