/**
 * `/api/admin/` promotions: `promotions` (list, with the bonuses waiting for a second
 * operator), `promotions/save`, `promotions/:id/enabled`, `promotions/:id/bookings`,
 * `promotion_panel` (one user's booking and deposits, for the chat inbox), `promotions/grant`,
 * `promotions/bookings/:id/confirm`, `promotions/bookings/:id/decline`, `promotion_config` and
 * `promotion_four_eyes` (the threshold in money settings). Every change is audited.
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import { serverNow } from "../../clock";
import type { PanelDeposit } from "../../domain/promotions/grants";
import { confirmBonus, declineBooking, grantBonus, listBookings, promotionPanel, type DecideResult } from "../../domain/promotions/grants";
import { getPromotionFourEyes, setPromotionFourEyes } from "../../domain/promotions/four-eyes";
import { getPromotion, listPromotionsForConsole, savePromotion, type Booking, type Promotion, type PromotionCounts, type SaveResult } from "../../domain/promotions/promotions";
import { parseTexts, TERMS_MAX, TITLE_MAX, type PromotionText, type PromotionTexts } from "../../domain/promotions/texts";
import { parsePercentBp } from "../../domain/money/units";
import { LOCALE_KEYS, type LocaleKey } from "../../../locales/languages";
import { requireOperator } from "../middleware/auth";
import { ApiError, ok, read } from "../envelope";
import { amount, id, int, optionalId, pathId, text } from "../fields";
import { usdt, usdtExact } from "../present";
import type { AppEnv } from "../types";
import { moneyFailure } from "./money-errors";
import { notifyUser } from "../../../durable-objects/user-channel/channel-api";
import { afterResponse } from "../idempotency";
import { termsOut } from "./promotions";

const flag = z.preprocess((v) => v === true || v === "1" || v === "on" || v === "true", z.boolean());
const Reason = z.object({ reason: text({ max: 500, invalid: "errors.reason_required" }) });
const DAY_MS = 86_400_000;

/** A percent with at most 2 decimals, above 0 and at most 100, as basis points. */
const percent = z.unknown().transform((v, ctx) => {
  const bp = typeof v === "string" || typeof v === "number" ? parsePercentBp(String(v)) : null;
  if (bp === null || bp <= 0 || bp > 10_000) {
    ctx.addIssue({ code: "custom", message: "errors.promotion_percent_invalid" });
    return z.NEVER;
  }
  return bp;
});

/** A calendar day "YYYY-MM-DD" (years 2000-2999) as its start in UTC ms (periods are whole UTC days). */
const day = z.unknown().transform((v, ctx) => {
  const m = typeof v === "string" ? /^(2\d{3})-(\d{2})-(\d{2})$/.exec(v.trim()) : null;
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || !Number.isSafeInteger(ms) || new Date(ms).getUTCDate() !== Number(m[3])) {
    ctx.addIssue({ code: "custom", message: "errors.promotion_date_invalid" });
    return z.NEVER;
  }
  return ms;
});

const SaveBody = Reason.extend({
  id: optionalId(),
  kind: z.literal("recharge_bonus", { error: "errors.invalid_field" }).default("recharge_bonus"),
  percent,
  cap: amount(),
  min_deposit: amount(),
  starts_on: day,
  ends_on: day,
  enabled: flag,
  sort: int({ min: 0, max: 1000, fallback: 0 }),
});

/** `title_<lng>` and `terms_<lng>` fields: English required, other languages optional. */
function readTexts(input: Record<string, unknown>): PromotionTexts {
  const texts: Partial<Record<LocaleKey, PromotionText>> = {};
  for (const lng of LOCALE_KEYS) {
    const title = typeof input[`title_${lng}`] === "string" ? (input[`title_${lng}`] as string).trim() : "";
    const terms = typeof input[`terms_${lng}`] === "string" ? (input[`terms_${lng}`] as string).trim() : "";
    if (title.length > TITLE_MAX || terms.length > TERMS_MAX) throw new ApiError("errors.invalid_field", 200, { field: `title_${lng}` }, { field: title.length > TITLE_MAX ? `title_${lng}` : `terms_${lng}` });
    if (title) texts[lng] = { title, terms };
    else if (terms) throw new ApiError("errors.incomplete", 200, { field: `title_${lng}` }, { field: `title_${lng}` });
  }
  if (!texts.en) throw new ApiError("errors.incomplete", 200, { field: "title_en" }, { field: "title_en" });
  return texts as PromotionTexts;
}


function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function promotionOut(p: Promotion, counts?: PromotionCounts) {
  return {
    id: p.id,
    kind: p.kind,
    texts: parseTexts(p.texts_json),
    ...termsOut(p),
    /** The period as the console edits it: whole UTC days, the end day included. */
    starts_on: isoDay(p.starts_at_ms),
    ends_on: isoDay(p.ends_at_ms - DAY_MS),
    enabled: p.enabled === 1,
    /** Who set the terms and who opened them (null: the demo seed). */
    terms_by: p.terms_by,
    opened_by: p.opened_by,
    sort: p.sort,
    counts: counts ?? null,
    /** Money terms frozen: a bonus under them is pending or paid. */
    frozen: counts ? counts.pending + counts.granted > 0 : null,
  };
}

function bookingOut(b: Booking, account?: string | null) {
  return {
    id: b.id,
    promotion_id: b.promotion_id,
    user_id: b.user_id,
    account: account ?? null,
    status: b.status,
    booked_at: b.booked_at_ms,
    deposit_id: b.deposit_id,
    bonus: b.bonus_micro === null ? null : usdtExact(b.bonus_micro),
    bonus_micro: b.bonus_micro,
    granted_by: b.granted_by,
    confirmed_by: b.confirmed_by,
    declined_by: b.declined_by,
    decline_reason: b.decline_reason,
    decided_at: b.decided_at_ms,
  };
}

function panelDepositOut(d: PanelDeposit) {
  return {
    id: d.deposit.id,
    status: d.deposit.status,
    amount: usdt(d.deposit.amount_micro),
    credited: d.deposit.credited_micro === null ? null : usdt(d.deposit.credited_micro),
    credited_micro: d.deposit.credited_micro,
    created_at: d.deposit.created_at_ms,
    /** "ok" or why it cannot back this promotion's bonus. */
    eligibility: d.eligibility,
    bonus: usdtExact(d.bonus_micro),
    bonus_micro: d.bonus_micro,
    /** Already backs a bonus (pending or paid): one deposit, one bonus. */
    used: d.used,
  };
}

export type AdminPromotionOut = ReturnType<typeof promotionOut>;
export type AdminBookingOut = ReturnType<typeof bookingOut>;
export type PanelDepositOut = ReturnType<typeof panelDepositOut>;

function saved(r: SaveResult) {
  if (r.status === "ok") return r.promotion.id;
  if (r.status === "not_found") throw new ApiError("errors.not_found", 404);
  if (r.status === "four_eyes_same_operator") throw new ApiError("errors.promotion_open_four_eyes");
  throw new ApiError("errors.promotion_terms_frozen");
}

/** The message for each refused grant, confirm or decline. */
function decided(r: DecideResult): AdminBookingOut {
  switch (r.status) {
    case "ok":
      return bookingOut(r.booking);
    case "not_booked":
      return fail("errors.promotion_not_booked");
    case "promotion_closed":
      return fail("errors.promotion_closed");
    case "deposit_used":
      return fail("errors.promotion_deposit_used");
    case "deposit_not_yours":
      return fail("errors.promotion_deposit_not_yours");
    case "deposit_not_approved":
      return fail("errors.promotion_deposit_not_approved");
    case "deposit_outside_period":
      return fail("errors.promotion_deposit_outside_period");
    case "deposit_below_minimum":
      return fail("errors.promotion_deposit_below_minimum");
    case "four_eyes_same_operator":
      throw new ApiError("errors.promotion_four_eyes_same", 403);
    case "four_eyes_required":
      throw new ApiError("errors.four_eyes", 403);
    default:
      throw moneyFailure(r.status);
  }
}

function fail(key: string): never {
  throw new ApiError(key);
}

/** The user's open pages refresh their balance (after the answer, like deposits). */
function paid(c: Context<AppEnv>, user_id: number) {
  return afterResponse(c, notifyUser(c.env, user_id, { type: "balance", reason: "promotion_bonus" }));
}

const GrantBody = z.object({ promotion_id: id(), user_id: id(), deposit_id: id() });
const PanelQuery = z.object({ promotion_id: id(), user_id: id() });

export const adminPromotionsApi = new Hono<AppEnv>()
  .use("/promotions", requireOperator)
  .use("/promotions/*", requireOperator)
  .use("/promotion_panel", requireOperator)
  .use("/promotion_config", requireOperator)
  .use("/promotion_four_eyes", requireOperator)
  .on(["GET", "POST"], "/promotions", async (c) => {
    const db = c.get("db");
    const [rows, pending, threshold] = await Promise.all([listPromotionsForConsole(db), listBookings(db, { status: "pending", limit: 100 }), getPromotionFourEyes(db)]);
    return ok(c, {
      items: rows.map((r) => promotionOut(r.promotion, r.counts)),
      pending: pending.map((r) => bookingOut(r.booking, r.account)),
      four_eyes: { threshold: usdt(threshold), threshold_micro: threshold },
    });
  })
  .post("/promotions/save", async (c) => {
    const { id: promotion_id, reason, percent: percent_bp, cap, min_deposit, starts_on, ends_on, ...rest } = read(c, SaveBody);
    const texts = readTexts(c.get("input"));
    if (ends_on < starts_on) throw new ApiError("errors.promotion_period_invalid", 200, {}, { field: "ends_on" });
    const input = { ...rest, texts, percent_bp, cap_micro: cap, min_deposit_micro: min_deposit, starts_at_ms: starts_on, ends_at_ms: ends_on + DAY_MS };
    const db = c.get("db");
    return ok(c, { id: saved(await savePromotion(db, c.get("operator").id, promotion_id, input, reason, await serverNow(c.env, db))) }, "errors.saved");
  })
  .post("/promotions/:id/enabled", async (c) => {
    // Opening or closing keeps every term and text; only whether it is offered changes.
    const { enabled, reason } = read(c, Reason.extend({ enabled: flag }));
    const db = c.get("db");
    const p = await getPromotion(db, pathId(c.req.param("id")));
    const texts = p ? parseTexts(p.texts_json) : null;
    if (!p || !texts) throw new ApiError("errors.not_found", 404);
    const input = { kind: p.kind, texts, percent_bp: p.percent_bp, cap_micro: p.cap_micro, min_deposit_micro: p.min_deposit_micro, starts_at_ms: p.starts_at_ms, ends_at_ms: p.ends_at_ms, enabled, sort: p.sort };
    return ok(c, { id: saved(await savePromotion(db, c.get("operator").id, p.id, input, reason, await serverNow(c.env, db))) }, "errors.saved");
  })
  .on(["GET", "POST"], "/promotions/:id/bookings", async (c) => {
    const rows = await listBookings(c.get("db"), { promotion_id: pathId(c.req.param("id")), limit: 100 });
    return ok(c, { items: rows.map((r) => bookingOut(r.booking, r.account)) });
  })
  .on(["GET", "POST"], "/promotion_panel", async (c) => {
    const q = read(c, PanelQuery);
    const r = await promotionPanel(c.get("db"), q.promotion_id, q.user_id);
    if (r.status !== "ok") throw new ApiError("errors.not_found", 404);
    return ok(c, {
      promotion: promotionOut(r.promotion),
      booking: r.booking ? bookingOut(r.booking) : null,
      deposits: r.deposits.map(panelDepositOut),
      four_eyes: { threshold: usdt(r.threshold_micro), threshold_micro: r.threshold_micro },
    });
  })
  .post("/promotions/grant", async (c) => {
    const body = read(c, GrantBody);
    const db = c.get("db");
    const out = decided(await grantBonus(db, c.get("operator").id, body, await serverNow(c.env, db)));
    if (out.status === "granted") await paid(c, out.user_id);
    return ok(c, out, out.status === "pending" ? "errors.promotion_grant_pending" : "errors.promotion_granted");
  })
  .post("/promotions/bookings/:id/confirm", async (c) => {
    const db = c.get("db");
    const out = decided(await confirmBonus(db, c.get("operator").id, pathId(c.req.param("id")), await serverNow(c.env, db)));
    await paid(c, out.user_id);
    return ok(c, out, "errors.promotion_granted");
  })
  .post("/promotions/bookings/:id/decline", async (c) => {
    const { reason } = read(c, Reason);
    const db = c.get("db");
    return ok(c, decided(await declineBooking(db, c.get("operator").id, pathId(c.req.param("id")), reason, await serverNow(c.env, db))), "errors.promotion_declined");
  })
  .on(["GET", "POST"], "/promotion_config", async (c) => {
    const threshold = await getPromotionFourEyes(c.get("db"));
    return ok(c, { four_eyes: { threshold: usdt(threshold), threshold_micro: threshold } });
  })
  .post("/promotion_four_eyes", async (c) => {
    const { reason, threshold } = read(c, Reason.extend({ threshold: amount() }));
    const r = await setPromotionFourEyes(c.get("db"), c.get("operator").id, threshold, reason, Date.now());
    if (r.status !== "ok") throw new ApiError("errors.four_eyes_ceiling", 200, { max: usdt(r.max_micro) }, { max_micro: r.max_micro });
    return ok(c, { threshold: usdt(threshold), threshold_micro: threshold }, "errors.saved");
  });
