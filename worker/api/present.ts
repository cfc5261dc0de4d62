/**
 * How money objects look in API answers: USDT as decimal strings (at most 2 decimals in,
 * exact micro-units out as `*_micro`), times in ms. One place, so every screen agrees.
 */
import { formatAmount, formatAmountExact } from "../domain/money/units";
import type { Deposit } from "../domain/deposits/deposits";
import type { DepositChannel } from "../domain/deposits/channels";
import type { Withdrawal } from "../domain/withdrawals/withdrawals";
import type { BankCard, Wallet } from "../domain/binding/binding";
import { maskCardLast4 } from "../domain/binding/validate";
import type { StatementLine } from "../domain/ledger/statement";
import type { WithdrawalRule } from "../domain/withdrawals/fees";

/** Short names for the two forms answers use: cut to the cent, and every micro-unit. */
export const usdt = (micro: number) => formatAmount(micro);
export const usdtExact = formatAmountExact;

/** A channel as operators configure it (the xpub is for the console only: it reveals every user's address). */
export function channelOut(c: DepositChannel) {
  return { id: c.id, currency: c.currency, chain: c.chain, address: c.address, xpub: c.xpub, min_amount: usdt(c.min_amount_micro), min_amount_micro: c.min_amount_micro, enabled: c.enabled === 1, sort: c.sort };
}

/** A channel as a user sees it: their own address (null without a session or an xpub). */
export function userChannelOut(c: DepositChannel, address: string | null) {
  return { id: c.id, currency: c.currency, chain: c.chain, address, min_amount: usdt(c.min_amount_micro), min_amount_micro: c.min_amount_micro, enabled: c.enabled === 1 };
}

export function depositOut(d: Deposit) {
  return {
    id: d.id,
    kind: d.kind,
    destination: d.destination,
    amount: usdt(d.amount_micro),
    amount_micro: d.amount_micro,
    tx_hash: d.tx_hash,
    image: `/files/${d.image_id}`,
    /** The user's own deposit address the money was sent to ("" for bank transfers). */
    address: d.address,
    status: d.status,
    /** What an operator verified and credited (null until the first approval). */
    credited: d.credited_micro === null ? null : usdt(d.credited_micro),
    credited_micro: d.credited_micro,
    reason: d.reason,
    created_at: d.created_at_ms,
    decided_at: d.decided_at_ms,
  };
}

export function withdrawalOut(w: Withdrawal) {
  return {
    id: w.id,
    channel: w.channel,
    destination: w.destination,
    amount: usdt(w.amount_micro),
    fee: usdtExact(w.fee_micro),
    actual_amount: usdtExact(w.actual_micro),
    amount_micro: w.amount_micro,
    fee_micro: w.fee_micro,
    actual_micro: w.actual_micro,
    terms_version: w.terms_version,
    status: w.status,
    tx_ref: w.tx_ref,
    reason: w.reason,
    created_at: w.created_at_ms,
    decided_at: w.decided_at_ms,
  };
}

export function ruleOut(r: WithdrawalRule & { terms_version: number }) {
  return { fee_fixed: usdtExact(r.fee_fixed_micro), fee_fixed_micro: r.fee_fixed_micro, fee_rate_bp: r.fee_rate_bp, min_amount: usdt(r.min_amount_micro), min_amount_micro: r.min_amount_micro, enabled: r.enabled, terms_version: r.terms_version };
}

export function walletOut(w: Wallet) {
  return { id: w.id, currency: w.currency, chain: w.chain, address: w.address, created_at: w.created_at_ms, opens_at: w.opens_at_ms };
}

export function bankCardOut(b: BankCard) {
  return { id: b.id, name: b.name, bank: b.bank, card_number: maskCardLast4(b.card_last4), created_at: b.created_at_ms, opens_at: b.opens_at_ms };
}

export function lineOut(l: StatementLine) {
  return {
    id: l.transfer_id,
    account: l.account,
    code: l.code,
    ref_type: l.ref_type,
    ref_id: l.ref_id,
    amount: usdtExact(l.amount_micro),
    amount_micro: l.amount_micro,
    balance_after: usdtExact(l.balance_after_micro),
    balance_after_micro: l.balance_after_micro,
    counterparty: l.counterparty,
    created_at: l.created_at_ms,
  };
}

/** The answer shapes, declared once by the functions above; the pages import them as types. */
export type ChannelOut = ReturnType<typeof channelOut>;
/** `address_hint`: why there is no address (no session), added by the public channel list. */
export type UserChannelOut = ReturnType<typeof userChannelOut> & { address_hint?: string };
export type DepositOut = ReturnType<typeof depositOut>;
export type WithdrawalOut = ReturnType<typeof withdrawalOut>;
export type WithdrawalRuleOut = ReturnType<typeof ruleOut>;
export type WalletOut = ReturnType<typeof walletOut>;
export type BankCardOut = ReturnType<typeof bankCardOut>;
export type LineOut = ReturnType<typeof lineOut>;
