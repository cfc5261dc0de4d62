import { formatAmount, formatPercentText } from "../../domain/money/units";
import type { OutOfBounds } from "../../domain/terms/bounds";
import { ApiError } from "../envelope";

/** A bound as a reader reads it: rates in percent, amounts in USDT, the rest as numbers. */
function boundText(field: string, value: number): string {
  if (field.endsWith("_bp")) return `${formatPercentText(value)} %`;
  if (["min_amount", "max_amount", "exposure_limit", "fee_fixed"].includes(field)) return `${formatAmount(value)} USDT`;
  return String(value);
}

/** The named refusals of proposing, opening and declining terms, as localized errors. */
export function termsFailure(r: { status: string } | OutOfBounds): ApiError {
  switch (r.status) {
    case "not_found":
      return new ApiError("errors.not_found", 404);
    case "state_conflict":
      return new ApiError("errors.state_conflict", 409);
    case "four_eyes_same_operator":
      return new ApiError("errors.terms_same_operator", 403);
    case "terms_stale":
      return new ApiError("errors.terms_stale", 409);
    case "tick_size_too_large":
      return new ApiError("errors.tick_size_too_large", 200, { field: "tick_size" });
    case "out_of_bounds": {
      const b = r as OutOfBounds;
      return new ApiError("errors.terms_out_of_bounds", 200, { field: b.field, min: boundText(b.field, b.min), max: boundText(b.field, b.max) }, { field: b.field, min: b.min, max: b.max });
    }
    default:
      return new ApiError("errors.internal", 500);
  }
}
