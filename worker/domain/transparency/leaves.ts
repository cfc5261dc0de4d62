/**
 * What a leaf says. Leaves are canonical JSON with a "kind" and a format version "v"; amounts
 * are integer micro-units as strings, prices the decimal strings the API shows, and accounts are
 * named only by pseudonym (never a name, phone, e-mail, address or card). Built from the rows
 * the moment the sequencer takes them, so what the log says is what the records said then.
 */
import { formatPriceE8 } from "../money/units";
import { SETTLEMENT_RULE_VERSION } from "../trades/settlement";
import { canonicalJson } from "./verify";

/**
 * 2: order leaves name their feed, and upstream ticks their trade id. 3: a transfer whose
 * reference is a user (the demo grant) names them by pseudonym, never by user id (decision 109).
 */
export const LEAF_VERSION = 3;

/** A ledger account as a leaf names it: "<pseudonym>:<code>" for a user's, "platform:<code>" otherwise. */
export type AccountRow = { owner_kind: string; user_id: number | null; code: string };
export function accountName(a: AccountRow, pseudonym: (user_id: number) => string): string {
  return a.owner_kind === "user" && a.user_id !== null ? `${pseudonym(a.user_id)}:${a.code}` : `platform:${a.code}`;
}

export type TransferRow = { id: number; code: string; ref_type: string; ref_id: string; amount_micro: number; created_at_ms: number };

export function transferLeaf(t: TransferRow, debit: string, credit: string, pseudonym: (user_id: number) => string): string {
  return canonicalJson({
    kind: "transfer",
    v: LEAF_VERSION,
    id: t.id,
    code: t.code,
    ref_type: t.ref_type,
    ref_id: t.ref_type === "user" ? pseudonym(Number(t.ref_id)) : t.ref_id,
    amount_micro: String(t.amount_micro),
    debit,
    credit,
    created_at_ms: t.created_at_ms,
  });
}

export type OrderRow = {
  id: number;
  user_id: number;
  symbol: string;
  direction: string;
  stake_micro: number;
  fee_micro: number;
  profit_rate_bp: number;
  seconds: number;
  /** Null only for an order voided because no tick came after it (decision 123). */
  entry_price_e8: number | null;
  entry_tick_ts_ms: number | null;
  delivery_at_ms: number;
  status: string;
  settlement_price_e8: number | null;
  settlement_tick_ts_ms: number | null;
  payout_micro: number | null;
  void_reason: string;
  settled_at_ms: number | null;
  feed: string;
};
export type OrderTickRow = { ts_ms: number; price_e8: number; role: string; trade_id: string | null };

export function orderLeaf(o: OrderRow, ticks: OrderTickRow[], account: string): string {
  return canonicalJson({
    kind: "order",
    v: LEAF_VERSION,
    id: o.id,
    account,
    symbol: o.symbol,
    direction: o.direction,
    stake_micro: String(o.stake_micro),
    fee_micro: String(o.fee_micro),
    profit_rate_bp: o.profit_rate_bp,
    seconds: o.seconds,
    entry: o.entry_price_e8 === null ? null : { price: formatPriceE8(o.entry_price_e8), ts: o.entry_tick_ts_ms },
    exit: o.settlement_price_e8 === null ? null : { price: formatPriceE8(o.settlement_price_e8), ts: o.settlement_tick_ts_ms },
    ticks: ticks.map((t) => ({ price: formatPriceE8(t.price_e8), role: t.role, ts: t.ts_ms, ...(t.trade_id === null ? {} : { trade_id: t.trade_id }) })),
    feed: o.feed,
    delivery_at_ms: o.delivery_at_ms,
    outcome: o.status,
    void_reason: o.void_reason,
    payout_micro: o.payout_micro === null ? null : String(o.payout_micro),
    settled_at_ms: o.settled_at_ms,
    rule_version: SETTLEMENT_RULE_VERSION,
  });
}
