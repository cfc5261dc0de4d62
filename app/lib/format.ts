/**
 * Money arrives from the API as integer micro-USDT. Display converts with integer arithmetic
 * (no float rounding of the amount) and formats with Intl.NumberFormat for the locale.
 */
export function formatUsdt(amount_micro: number, locale: string, fraction_digits = 2): string {
  const negative = amount_micro < 0;
  const abs = Math.abs(amount_micro);
  const whole = Math.floor(abs / 1_000_000);
  const fraction = String(abs % 1_000_000).padStart(6, "0").slice(0, fraction_digits);
  const nf = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  const sep = new Intl.NumberFormat(locale, { minimumFractionDigits: 1 }).formatToParts(1.5).find((p) => p.type === "decimal")?.value ?? ".";
  return `${negative ? "-" : ""}${nf.format(whole)}${fraction_digits > 0 ? sep + fraction : ""}`;
}

export function formatDate(ms: number, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium" }).format(new Date(ms));
}

export function formatDateTime(ms: number, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: "short", timeStyle: "medium" }).format(new Date(ms));
}
