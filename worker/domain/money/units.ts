/**
 * Money and prices as text, and back: the one place for the API and the pages alike.
 *
 * Inside, amounts are integers: micro-USDT (10^-6), prices × 10^8 ("e8"), rates in basis
 * points. Text is built from the integer's digits and parsed back the same way, so no float
 * ever touches an amount. Display feeds Intl.NumberFormat a decimal STRING (it keeps strings
 * exact) with roundingMode "trunc": a user is never shown more than the value.
 */
export const MICRO_PER_USDT = 1_000_000;
const USDT_DECIMALS = 6;
const PRICE_DECIMALS = 8;

/** The largest amount a request may carry: 1e9 USDT, far below 2^53 micro-units. */
export const MAX_AMOUNT_MICRO = 1_000_000_000 * MICRO_PER_USDT;

// ---------------------------------------------------------------- integers → plain text

/** An integer scaled by 10^scale as exact decimal text: (-1234500, 6) → "-1.234500". */
function decimalText(value: number, scale: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`not a safe integer amount: ${value}`);
  const digits = String(Math.abs(value)).padStart(scale + 1, "0");
  const cut = digits.length - scale;
  return `${value < 0 ? "-" : ""}${digits.slice(0, cut)}${scale > 0 ? `.${digits.slice(cut)}` : ""}`;
}

/** Keeps the first `decimals` decimals (truncation, never rounding up). */
function cutFraction(text: string, decimals: number): string {
  const [whole, fraction = ""] = text.split(".");
  return decimals > 0 ? `${whole}.${fraction.slice(0, decimals).padEnd(decimals, "0")}` : whole;
}

/** Drops trailing zeros of the fraction, keeping at least `min` decimals. */
function trimFraction(text: string, min: number): string {
  const [whole, fraction = ""] = text.split(".");
  const kept = fraction.replace(/0+$/, "").padEnd(min, "0");
  return kept ? `${whole}.${kept}` : whole;
}

/** Basis points as the plain percent text the API answers and operators type: 68 → "0.68", 100 → "1". */
export function formatPercentText(bp: number): string {
  return trimFraction(decimalText(bp, 2), 0);
}

/** Percent text with at most 2 decimals ("0.68", "1") → basis points (68, 100); null if it is not one. */
export function parsePercentBp(text: string): number | null {
  const m = /^(\d{1,6})(?:\.(\d{1,2}))?$/.exec(text.trim());
  return m ? Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0")) : null;
}

/** micro-USDT → "1234.56" (the API's decimal string; truncated to `decimals`). */
export function formatAmount(amount_micro: number, decimals = 2): string {
  return cutFraction(decimalText(amount_micro, USDT_DECIMALS), decimals);
}

/** Every micro-unit, at least 2 decimals: "1.00", "0.005" (proportional fees can have more). */
export function formatAmountExact(amount_micro: number): string {
  return trimFraction(decimalText(amount_micro, USDT_DECIMALS), 2);
}

/** 6123450000000 → "61234.5" (trailing zeros dropped, at least `min_decimals`). */
export function formatPriceE8(price_e8: number, min_decimals = 2): string {
  return trimFraction(decimalText(price_e8, PRICE_DECIMALS), min_decimals);
}

// ---------------------------------------------------------------- plain text → integers

type Decimal = { negative: boolean; whole: string; fraction: string };

function splitDecimal(input: unknown): Decimal | null {
  // JSON numbers such as 12.34 print exactly as typed for short decimals; exponents are refused.
  const text = typeof input === "number" ? (Number.isFinite(input) && !/e/i.test(String(input)) ? String(input) : "") : typeof input === "string" ? input.trim() : "";
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  return m ? { negative: m[1] === "-", whole: m[2], fraction: m[3] ?? "" } : null;
}

/** The integer a decimal stands for at 10^scale (the fraction must fit the scale). */
function scaled(d: Decimal, scale: number): number {
  const v = Number(d.whole) * 10 ** scale + Number(d.fraction.padEnd(scale, "0"));
  return d.negative ? -v : v;
}

export type ParsedAmount = { status: "ok"; amount_micro: number } | { status: "invalid" | "too_many_decimals" | "too_large" | "not_positive" };

/**
 * An amount a person typed (a user, or an operator in the console): "12", "12.3", "12.34" or a
 * JSON number, as micro-USDT. At most 2 decimals: the API's rule for every amount it accepts.
 */
export function parseAmount(input: unknown, max_decimals = 2): ParsedAmount {
  const d = splitDecimal(input);
  if (!d || d.negative || d.whole.length > 13) return { status: "invalid" };
  if (d.fraction.length > max_decimals) return { status: "too_many_decimals" };
  const amount_micro = scaled(d, USDT_DECIMALS);
  if (amount_micro > MAX_AMOUNT_MICRO) return { status: "too_large" };
  if (amount_micro <= 0) return { status: "not_positive" };
  return { status: "ok", amount_micro };
}

/**
 * An exact amount the API answered ("-185.5", "0.005": signed, up to 6 decimals) back into
 * micro-USDT, for pages that get only the text (console balances, an order's expected income).
 * Not for input: people type at most 2 decimals (`parseAmount`).
 */
export function parseAmountExact(text: string | null | undefined): number | null {
  const d = splitDecimal(text);
  if (!d || d.whole.length > 13 || d.fraction.length > USDT_DECIMALS) return null;
  const v = scaled(d, USDT_DECIMALS);
  return Number.isSafeInteger(v) ? v : null;
}

/** "61234.5" → 6123450000000 (price × 10^8), or null if not a plain positive decimal. */
export function parsePriceE8(text: string | number): number | null {
  const d = splitDecimal(text);
  if (!d || d.negative || d.whole.length > 9 || d.fraction.length > PRICE_DECIMALS) return null;
  const v = scaled(d, PRICE_DECIMALS);
  return v > 0 && Number.isSafeInteger(v) ? v : null;
}

// ---------------------------------------------------------------- display for a locale

/** Exact decimal text in the locale's digits and separators, cut (never rounded) to `max` decimals. */
function formatDecimal(text: string, locale: string, min: number, max: number, extra: Intl.NumberFormatOptions = {}): string {
  // roundingMode and string input are ES2023 (Node 20, workerd); the lib types here are ES2022.
  const options = { ...extra, minimumFractionDigits: min, maximumFractionDigits: max, roundingMode: "trunc" } as Intl.NumberFormatOptions;
  const format = new Intl.NumberFormat(locale, options).format as unknown as (value: string) => string;
  return format(text);
}

/** micro-USDT for a locale, cut to `digits` decimals (2 unless told): "1,234.56", "1.234,56". */
export function formatUsdt(amount_micro: number, locale: string, { digits = 2 }: { digits?: number } = {}): string {
  return formatDecimal(decimalText(amount_micro, USDT_DECIMALS), locale, digits, digits);
}

/**
 * Every micro-unit, at least 2 decimals: fees and payouts can carry fractions of a cent, and
 * whoever pays out or checks a statement must see the exact figure, not a truncated one.
 */
export function formatUsdtExact(amount_micro: number, locale: string): string {
  const text = formatAmountExact(amount_micro);
  const digits = text.split(".")[1]?.length ?? 0;
  return formatDecimal(text, locale, digits, digits);
}

/** "+12.50" or "-3.00" (ASCII signs, so the text can be copied as a number). */
export function formatSigned(amount_micro: number, locale: string): string {
  const text = formatUsdtExact(Math.abs(amount_micro), locale);
  return amount_micro > 0 ? `+${text}` : amount_micro < 0 ? `-${text}` : text;
}

/**
 * A rate in basis points as a percent figure: 8500 → "85", 150 → "1.5", 5 → "0.05". With
 * `percent`, the locale's percent form with 2 decimals: 50 → "0.50%" (en), "0,50 %" (de).
 */
export function formatBp(bp: number, locale: string, { percent = false }: { percent?: boolean } = {}): string {
  return percent ? formatDecimal(decimalText(bp, 4), locale, 2, 2, { style: "percent" }) : formatDecimal(decimalText(bp, 2), locale, 0, 2);
}

/**
 * A rate a user reads (a payout, a fee) in the locale's percent form, with only the decimals it
 * has (at most 2): 8000 → "80%" (en), "80 %" (de); 8550 → "85.5%"; 5 → "0.05%".
 */
export function formatRate(bp: number, locale: string): string {
  return formatDecimal(decimalText(bp, 4), locale, 0, 2, { style: "percent" });
}

/**
 * A price change as the API sends it, in percent ("1.23", "-0.50"), in the locale's percent form
 * with its sign: "+1.23%" (en), "+1,23 %" (de), "-0.50%"; no sign at zero; "--" when there is none.
 */
export function formatChangePercent(change_pct: string | null | undefined, locale: string): string {
  const m = /^(-?)(\d{1,9})(?:\.(\d{1,8}))?$/.exec(change_pct ?? "");
  if (!m) return "--";
  // The percent style multiplies by 100: hand it the same digits two places to the left, as text (exact).
  const [, sign, whole, fraction = ""] = m;
  const digits = (whole + fraction).replace(/^0+(?=\d)/, "").padStart(fraction.length + 3, "0");
  const cut = digits.length - fraction.length - 2;
  return formatDecimal(`${sign}${digits.slice(0, cut)}.${digits.slice(cut)}`, locale, 2, 2, { style: "percent", signDisplay: "exceptZero" });
}

/** An exact price string for a locale, every decimal kept: "67012.5" → "67,012.5" (en) / "67.012,5" (de); else "--". */
export function formatPrice(price: string | null | undefined, locale: string): string {
  if (!price || !/^\d+(\.\d{1,20})?$/.test(price)) return "--";
  const digits = price.split(".")[1]?.length ?? 0;
  return formatDecimal(price, locale, digits, digits);
}
