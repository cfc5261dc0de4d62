/**
 * USDT amounts: integers of micro-USDT (1e-6) everywhere in the domain and the database.
 * Users type at most 2 decimals; these functions convert without floating point.
 */
export const MICRO_PER_USDT = 1_000_000;

/** The largest amount a request may carry: 1e9 USDT, far below 2^53 micro-units. */
export const MAX_AMOUNT_MICRO = 1_000_000_000 * MICRO_PER_USDT;

export type ParsedAmount = { status: "ok"; amount_micro: number } | { status: "invalid" | "too_many_decimals" | "too_large" | "not_positive" };

/** Parses "12", "12.3", "12.34" (also a number from JSON) into micro-USDT. */
export function parseAmount(input: unknown, max_decimals = 2): ParsedAmount {
  const text = typeof input === "number" ? (Number.isFinite(input) ? numberToPlain(input) : "") : typeof input === "string" ? input.trim() : "";
  const m = /^(\d{1,13})(?:\.(\d+))?$/.exec(text);
  if (!m) return { status: "invalid" };
  const fraction = m[2] ?? "";
  if (fraction.length > max_decimals) return { status: "too_many_decimals" };
  const amount_micro = Number(m[1]) * MICRO_PER_USDT + Number(fraction.padEnd(6, "0"));
  if (amount_micro > MAX_AMOUNT_MICRO) return { status: "too_large" };
  if (amount_micro <= 0) return { status: "not_positive" };
  return { status: "ok", amount_micro };
}

/** micro-USDT → "1234.56" (decimal string for API answers; truncated to `decimals`). */
export function formatAmount(amount_micro: number, decimals = 2): string {
  if (!Number.isSafeInteger(amount_micro)) throw new Error(`not a safe integer amount: ${amount_micro}`);
  const sign = amount_micro < 0 ? "-" : "";
  const abs = Math.abs(amount_micro);
  const whole = Math.floor(abs / MICRO_PER_USDT);
  const fraction = String(abs % MICRO_PER_USDT).padStart(6, "0").slice(0, decimals);
  return decimals > 0 ? `${sign}${whole}.${fraction}` : `${sign}${whole}`;
}

function numberToPlain(n: number): string {
  // JSON numbers such as 12.34 print exactly as typed for 2-decimal values; reject exponents.
  const s = String(n);
  return /e/i.test(s) ? "" : s;
}
