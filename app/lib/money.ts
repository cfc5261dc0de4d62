/**
 * What the money pages read from the API (mirrors worker/api/present.ts) and the small pure
 * helpers they share. Money stays in integer micro-USDT; nothing here uses floats for it.
 */
import { formatUsdt } from "./format";

/** A crypto channel with the signed-in user's own address on it (null when it cannot be given). */
export type DepositChannel = { id: number; currency: string; chain: string; address: string | null; address_hint?: string; min_amount: string; min_amount_micro: number; enabled: boolean };

export type PlatformBank =
  | { enabled: true; bank: string; holder: string; account: string; branch: string; min_amount: string; min_amount_micro: number }
  | { enabled: false };

/** `confirming`: verified by one operator, waiting for a second (large deposits). */
export type DepositStatus = "review" | "confirming" | "approved" | "rejected";
export type DepositItem = {
  id: number;
  kind: "crypto" | "bank";
  destination: string;
  amount: string;
  amount_micro: number;
  tx_hash: string;
  image: string;
  /** The user's own deposit address the money was sent to ("" for bank transfers). */
  address: string;
  status: DepositStatus;
  /** The verified amount credited (null until an operator verified it). */
  credited: string | null;
  credited_micro: number | null;
  reason: string | null;
  created_at: number;
  decided_at: number | null;
};

export type WithdrawalStatus = "review" | "paid" | "rejected" | "cancelled";
export type WithdrawalItem = {
  id: number;
  channel: "trc20" | "bank";
  destination: string;
  amount: string;
  fee: string;
  actual_amount: string;
  amount_micro: number;
  fee_micro: number;
  actual_micro: number;
  status: WithdrawalStatus;
  tx_ref: string | null;
  reason: string | null;
  created_at: number;
  decided_at: number | null;
};

export type WithdrawalRuleOut = { fee_fixed: string; fee_fixed_micro: number; fee_rate_bp: number; min_amount: string; min_amount_micro: number; enabled: boolean };
export type WithdrawInfo = {
  available: string;
  available_micro: number;
  rules: { trc20: WithdrawalRuleOut; bank: WithdrawalRuleOut };
  paused_until: number | null;
};

export type WalletItem = { id: number; currency: string; chain: string; address: string; created_at: number };
export type BankCardItem = { id: number; name: string; bank: string; card_number: string; created_at: number };

export type StatementLine = {
  id: number;
  account: string;
  code: string;
  ref_type: string;
  ref_id: string;
  amount: string;
  amount_micro: number;
  balance_after: string;
  balance_after_micro: number;
  counterparty: string;
  created_at: number;
};

export type Paged<T> = { items: T[]; total: number; page_no: number; row: number };

/** The spec's pagination: 30 rows a page. */
export const PAGE_ROWS = 30;
/** "Load more" keeps `?pages=n` in the address, so back/forward and reloads show the same list. */
export const MAX_PAGES = 50;

export function pagesParam(url: URL): number {
  const raw = url.searchParams.get("pages");
  if (!raw || !/^\d{1,3}$/.test(raw)) return 1;
  return Math.min(MAX_PAGES, Math.max(1, Number(raw)));
}

/**
 * Loads pages 1..n (in parallel) and joins them. A record that arrives while the pages load
 * shifts the rest down by one, so the same row can show up on two pages: keep the first.
 */
export async function loadPages<T>(pages: number, fetchPage: (page_no: number) => Promise<{ code: number; msg: string; data: Paged<T> | unknown }>, keyOf: (item: T) => string) {
  const answers = await Promise.all(Array.from({ length: pages }, (_, i) => fetchPage(i + 1)));
  const failed = answers.find((a) => a.code !== 1);
  if (failed) return { items: [] as T[], total: 0, pages, error: failed.msg };
  const seen = new Set<string>();
  const items: T[] = [];
  let total = 0;
  for (const a of answers) {
    const page = a.data as Paged<T>;
    total = Math.max(total, page.total);
    for (const item of page.items) {
      const key = keyOf(item);
      if (seen.has(key)) continue;
      seen.add(key);
      items.push(item);
    }
  }
  return { items, total, pages, error: "" };
}

/** Every micro-unit, at least 2 decimals (fees with a rate can carry fractions of a cent). */
export function formatUsdtExact(micro: number, locale: string): string {
  let digits = 2;
  while (digits < 6 && Math.abs(micro) % 10 ** (6 - digits) !== 0) digits += 1;
  return formatUsdt(micro, locale, digits);
}

/** "+12.50" or "-3.00" (ASCII signs, so the text can be copied as a number). */
export function formatSigned(micro: number, locale: string): string {
  const text = formatUsdtExact(Math.abs(micro), locale);
  return micro > 0 ? `+${text}` : micro < 0 ? `-${text}` : text;
}

/** A fee rate in basis points as a percent figure for the locale: 50 → "0.5". */
export function formatRate(bp: number, locale: string): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(bp / 100);
}

/** The typed amount as the API expects it: digits, "." and at most 2 decimals. */
export const AMOUNT_PATTERN = /^\d*(?:\.\d*)?$/;

/**
 * Cleans what a user typed into an amount field: a decimal comma (German, Spanish, ...)
 * becomes a dot and spaces go. Answers null for text that is not an amount at all, and
 * "decimals" when it has more than 2 decimals (the field then keeps its previous value).
 */
export function cleanAmountInput(raw: string): string | null | "decimals" {
  const text = raw.replace(/\s/g, "").replace(",", ".");
  if (!AMOUNT_PATTERN.test(text)) return null;
  const [, fraction = ""] = text.split(".");
  if (fraction.length > 2) return "decimals";
  if (text.split(".")[0].length > 13) return null;
  return text;
}

/** A new idempotency key for one money form (recharge, withdrawal). */
export function newRequestKey(): string {
  return crypto.randomUUID();
}
