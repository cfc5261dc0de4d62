/**
 * Display helpers for trade figures. Prices, rates and changes as text come from
 * worker/domain/money/units.ts (`formatPrice`, `formatBp`, `formatChangePercent`).
 */
import { parsePriceE8 } from "../../worker/domain/money/units";
import type { Direction } from "./trade-types";

/** The sign of a change, for colour: 1 rise, -1 fall, 0 flat or unknown. */
export function changeSign(change_pct: string | null | undefined): 1 | -1 | 0 {
  const n = Number(change_pct ?? "0");
  return n > 0 ? 1 : n < 0 ? -1 : 0;
}

/**
 * A 24h volume, compact ("1.24K", "3,5M"). Display only. The K/M/B suffixes are our own: Intl's
 * compact notation differs between the server's and the browser's ICU data in some languages
 * (Spanish, Italian, Portuguese, Vietnamese), which broke hydration; plain digits do not.
 */
export function formatVolume(volume: string | null | undefined, locale: string): string {
  const n = Number(volume ?? "");
  if (volume === null || volume === undefined || !Number.isFinite(n)) return "--";
  const digits = (x: number) => new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(x);
  const abs = Math.abs(n);
  for (const [size, suffix] of [[1e9, "B"], [1e6, "M"], [1e3, "K"]] as const) if (abs >= size) return digits(n / size) + suffix;
  return digits(n);
}

/** Compares two exact price strings: 1 if a > b, -1 if a < b, 0 if equal, null if unknown. */
export function comparePrices(a: string | null | undefined, b: string | null | undefined): 1 | -1 | 0 | null {
  const x = a ? parsePriceE8(a) : null;
  const y = b ? parsePriceE8(b) : null;
  if (x === null || y === null) return null;
  return x > y ? 1 : x < y ? -1 : 0;
}

/** Is an open position currently ahead (1), behind (-1) or level (0) at `price`? */
export function standing(direction: Direction, entry: string | null, price: string | null | undefined): 1 | -1 | 0 | null {
  const c = comparePrices(price, entry);
  if (c === null) return null;
  return (direction === "up" ? c : -c) as 1 | -1 | 0;
}

/** "04:59", "1:02:03"; never negative. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(2, "0");
  const ss = String(s).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** Local clock time with seconds: "14:32:05". */
export function formatClock(ms: number, locale: string): string {
  return new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", second: "2-digit" }).format(new Date(ms));
}

/** Decimals to show for a product's prices (at least 2, as the API sends them). */
export function priceDecimals(...prices: (string | null | undefined)[]): number {
  let d = 2;
  for (const p of prices) {
    const f = p?.split(".")[1];
    if (f && f.length > d) d = f.length;
  }
  return Math.min(d, 8);
}
