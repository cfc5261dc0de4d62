/**
 * CSV as RFC 4180 has it: fields separated by commas, records ended by CRLF, and a field that
 * holds a comma, a double quote, CR or LF enclosed in double quotes with its quotes doubled.
 * A field starting with = + - @ TAB or CR (OWASP's CSV injection list) gets a leading apostrophe
 * inside quotes, so a spreadsheet shows it as text instead of running it as a formula (user-typed
 * text such as a card holder's name reaches the statement). A plain negative number ("-12.50",
 * an amount) is the one exception: a spreadsheet reads it as the number it is, and `-1+cmd` is
 * not one.
 */
export type CsvValue = string | number | null;

/** Leading characters a spreadsheet may take as the start of a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** An amount such as "-12.50": a minus, digits, at most one decimal point with digits after it. */
const PLAIN_NEGATIVE_NUMBER = /^-\d+(?:\.\d+)?$/;

/** Would a spreadsheet run this text as a formula? */
export function mayRunAsFormula(text: string): boolean {
  return FORMULA_START.test(text) && !PLAIN_NEGATIVE_NUMBER.test(text);
}

function field(v: CsvValue): string {
  if (v === null) return "";
  const text = String(v);
  const formula = typeof v === "string" && mayRunAsFormula(text);
  const safe = formula ? `'${text}` : text;
  return formula || /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
  return [header, ...rows].map((r) => r.map(field).join(",") + "\r\n").join("");
}

/** "YYYY-MM-DD" as the UTC midnight it starts, or null. */
export function utcDayStart(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === text ? ms : null;
}

/** A time as ISO 8601 UTC ("2026-11-23T21:25:34.000Z"), or empty. */
export function isoUtc(ms: number | null): string {
  return ms === null ? "" : new Date(ms).toISOString();
}
