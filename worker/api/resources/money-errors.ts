import type { MoneyFailure } from "../../domain/ledger/transfer";
import { ApiError } from "../envelope";

/** The message for each named way a money batch can be refused. */
export function moneyFailure(status: MoneyFailure | "not_found"): ApiError {
  switch (status) {
    case "not_found":
      return new ApiError("errors.not_found", 404);
    case "state_conflict":
    case "duplicate":
      return new ApiError("errors.state_conflict", 409);
    case "four_eyes":
      return new ApiError("errors.four_eyes", 403);
    case "insufficient_funds":
      return new ApiError("errors.insufficient_funds");
    case "duplicate_request":
      return new ApiError("errors.idempotency_conflict", 409);
    case "account_missing":
      return new ApiError("errors.internal", 500);
  }
}

export function failWith(err: ApiError): never {
  throw err;
}
