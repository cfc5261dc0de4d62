import { z } from "zod";

/**
 * zod building blocks for request fields. Form posts send everything as strings, so numbers
 * are parsed from strings here. Messages are locale keys (see envelope.ts `read`).
 */
const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === "string" && v.trim() === "");

/** A required string: missing or blank → "Please enter complete information". */
export function text(opts: { max: number; invalid?: string; trim?: boolean }) {
  const invalid = opts.invalid ?? "errors.invalid_field";
  return z.preprocess(
    (v) => (typeof v === "string" && opts.trim !== false ? v.trim() : v),
    z
      .string({ error: (iss) => (isBlank(iss.input) ? "errors.incomplete" : invalid) })
      .min(1, "errors.incomplete")
      .max(opts.max, invalid),
  );
}

export function optionalText(max: number) {
  return z.preprocess((v) => (typeof v === "string" ? v.trim() : v), z.string({ error: "errors.invalid_field" }).max(max, "errors.invalid_field")).optional();
}

/** A positive integer sent as a number or a numeric string (page numbers, ids). */
export function int(opts: { min: number; max: number; fallback?: number }) {
  const base = z.preprocess(
    (v) => (typeof v === "string" && /^\d{1,12}$/.test(v.trim()) ? Number(v.trim()) : v),
    z.number({ error: "errors.invalid_field" }).int("errors.invalid_field").min(opts.min, "errors.invalid_field").max(opts.max, "errors.invalid_field"),
  );
  return opts.fallback === undefined ? base : z.preprocess((v) => (isBlank(v) ? opts.fallback : v), base);
}

/** The spec's pagination form: page_no and row, defaults 1 and 30. */
export const pagination = { page_no: int({ min: 1, max: 100_000, fallback: 1 }), row: int({ min: 1, max: 100, fallback: 30 }) };
