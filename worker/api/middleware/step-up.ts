/**
 * Decision 118: one operator's session alone must not move money. The console routes below
 * move money or open terms money flows under; each needs the operator's second factor confirmed
 * within the last five minutes (at sign-in, or with `/api/admin/step_up`). Without it the answer
 * is `step_up_required` (403) and the console asks for a code, then sends the action again.
 *
 * A new console route that moves money or sets money terms belongs in this list;
 * tests/api/step-up.test.ts makes every POST under /api/admin be listed here or named there as
 * moving nothing.
 */
import type { Hono, MiddlewareHandler } from "hono";
import { serverNow } from "../../clock";
import { stepUpFresh } from "../../domain/identity/operator-two-factor";
import { ApiError } from "../envelope";
import type { AppEnv } from "../types";
import { requireOperator } from "./auth";

/** Paths under /api (Hono patterns, POST), grouped by what they do with money. */
export const STEP_UP_ROUTES = [
  // Money in: a deposit credited (first approval, and the second operator's for large ones).
  "/admin/deposits/:id/approve",
  // Money out, or back from a hold.
  "/admin/withdrawals/:id/pay",
  "/admin/withdrawals/:id/reject",
  // Balance corrections (four eyes): proposing and approving.
  "/admin/adjustments/new",
  "/admin/adjustments/:id/approve",
  // Promotions: terms, opening them, bonuses granted and confirmed.
  "/admin/promotions/save",
  "/admin/promotions/:id/enabled",
  "/admin/promotions/grant",
  "/admin/promotions/bookings/:id/confirm",
  // Earn: pool products and miner plans, their terms and opening them.
  "/admin/earn/pool/save",
  "/admin/earn/miner/save",
  "/admin/earn/pool/:id/enabled",
  "/admin/earn/miner/:id/enabled",
  // Markets: payout rates and stakes.
  "/admin/products/save",
  // Terms proposed by one operator, put in force by another (decision 121).
  "/admin/terms/proposals/:id/open",
  // Where users' money goes, what leaving costs, and the four-eyes and allow-list controls.
  "/admin/deposit_channels",
  "/admin/deposit_channels/:id",
  "/admin/bank_account",
  "/admin/withdrawal_rules/:channel",
  "/admin/deposit_four_eyes",
  "/admin/promotion_four_eyes",
  "/admin/binding_wait",
] as const;

/** Refuses an operator whose last confirmation is older than STEP_UP_TTL_MS (on the step-up clock). */
export const requireStepUp: MiddlewareHandler<AppEnv> = async (c, next) => {
  // The test clock (worker/clock.ts) lets a journey see five minutes pass; elsewhere Date.now().
  const now_ms = await serverNow(c.env, c.get("db"));
  if (!stepUpFresh(c.get("step_up_at_ms"), now_ms)) throw new ApiError("errors.step_up_required", 403);
  await next();
};

/** Puts the guard in front of every listed route: called once, before the /admin sub-apps are mounted. */
export function guardMoneyRoutes(app: Hono<AppEnv, any, any>): void {
  for (const path of STEP_UP_ROUTES) app.use(path, requireOperator, requireStepUp);
}
