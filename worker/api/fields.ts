import { z } from "zod";
import { parseAmount } from "../domain/money/units";
import { ApiError } from "./envelope";

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

/** The product's pagination form: page_no and row, defaults 1 and 30. */
export const pagination = { page_no: int({ min: 1, max: 100_000, fallback: 1 }), row: int({ min: 1, max: 100, fallback: 30 }) };

/**
 * A USDT amount typed by a user (at most 2 decimals), as micro-USDT. Refuses floats with more
 * decimals, exponents, negatives and absurd sizes with a clear message.
 */
export function amount() {
  return z.unknown().transform((v, ctx) => {
    if (isBlank(v)) {
      ctx.addIssue({ code: "custom", message: "errors.incomplete" });
      return z.NEVER;
    }
    const r = parseAmount(v);
    if (r.status !== "ok") {
      ctx.addIssue({ code: "custom", message: r.status === "too_many_decimals" ? "errors.amount_decimals" : "errors.amount_invalid" });
      return z.NEVER;
    }
    return r.amount_micro;
  });
}

/** A positive id sent as a number or numeric string; blank when optional means "none". */
export function id() {
  return int({ min: 1, max: Number.MAX_SAFE_INTEGER });
}

export function optionalId() {
  return z.preprocess((v) => (isBlank(v) ? null : v), id().nullable()).default(null);
}

/** An id from a route's path (`/deposits/:id/approve`): a positive integer, or the route is not found. */
export function pathId(raw: string): number {
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw new ApiError("errors.not_found", 404);
  return n;
}
