/**
 * What the money pages read from the API (the shapes worker/api/present.ts declares) and the
 * small pure helpers they share. Money text comes from worker/domain/money/units.ts.
 */
import type { BankCardOut, DepositOut, LineOut, UserChannelOut, WalletOut, WithdrawalOut, WithdrawalRuleOut } from "../../worker/api/present";

/** The API's answer shapes, declared once in worker/api/present.ts. */
export type DepositChannel = UserChannelOut;
export type DepositItem = DepositOut;
/** `confirming`: verified by one operator, waiting for a second (large deposits). */
export type DepositStatus = DepositOut["status"];
export type WithdrawalItem = WithdrawalOut;
export type WithdrawalStatus = WithdrawalOut["status"];
export type { WithdrawalRuleOut };
export type WalletItem = WalletOut;
export type BankCardItem = BankCardOut;
export type StatementLine = LineOut;

export type PlatformBank =
  | { enabled: true; bank: string; holder: string; account: string; branch: string; min_amount: string; min_amount_micro: number }
  | { enabled: false };

export type WithdrawInfo = {
  available: string;
  available_micro: number;
  rules: { trc20: WithdrawalRuleOut; bank: WithdrawalRuleOut };
  paused_until: number | null;
  now_ms: number;
};

export type Paged<T> = { items: T[]; total: number; page_no: number; row: number };

/** The product's pagination: 30 rows a page. */
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
