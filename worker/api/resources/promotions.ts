/**
 * Promotions for users, under `/api/index/`: `activity` lists the promotions a user can see
 * with their own state, `activity_book` books the appointment with customer service that a
 * recharge bonus starts with. Grants happen in the console (admin-promotions.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import { serverNow } from "../../clock";
import { bookable } from "../../domain/promotions/bonus";
import { bookPromotion, listForUser, type Booking, type Promotion } from "../../domain/promotions/promotions";
import { parseTexts, textFor } from "../../domain/promotions/texts";
import { formatPercentText } from "../../domain/money/units";
import type { LocaleKey } from "../../../locales/languages";
import { requireUser } from "../middleware/auth";
import { ApiError, ok, read } from "../envelope";
import { id } from "../fields";
import { usdt, usdtExact } from "../present";
import type { AppEnv } from "../types";

/** What a user is told about their booking: a bonus waiting for a second operator still reads "booked". */
export type UserPromotionState = "not_booked" | "booked" | "granted" | "declined";

function userState(b: Booking | null): UserPromotionState {
  if (!b) return "not_booked";
  return b.status === "pending" ? "booked" : b.status;
}

/** The money terms as both text and micro-units, shared with the console's answer. */
export function termsOut(p: Promotion) {
  return {
    percent: formatPercentText(p.percent_bp),
    percent_bp: p.percent_bp,
    cap: usdt(p.cap_micro),
    cap_micro: p.cap_micro,
    min_deposit: usdt(p.min_deposit_micro),
    min_deposit_micro: p.min_deposit_micro,
    starts_at: p.starts_at_ms,
    ends_at: p.ends_at_ms,
  };
}

export function userPromotionOut(p: Promotion, b: Booking | null, locale: LocaleKey, now_ms: number) {
  const texts = parseTexts(p.texts_json);
  const words = texts ? textFor(texts, locale) : { title: "", terms: "", lang: locale };
  const state = userState(b);
  return {
    id: p.id,
    kind: p.kind,
    title: words.title,
    terms: words.terms,
    lang: words.lang,
    ...termsOut(p),
    /** Whether a booking would be taken now (open and inside the period). */
    bookable: bookable(p, now_ms) === "ok",
    state,
    booked_at: b?.booked_at_ms ?? null,
    // Every micro-unit: a bonus can carry fractions of a cent, and the statement shows them.
    bonus: state === "granted" ? usdtExact(b!.bonus_micro!) : null,
    bonus_micro: state === "granted" ? b!.bonus_micro : null,
    granted_at: state === "granted" ? b!.decided_at_ms : null,
    decline_reason: state === "declined" ? b!.decline_reason : null,
    declined_at: state === "declined" ? b!.decided_at_ms : null,
  };
}

export type UserPromotionOut = ReturnType<typeof userPromotionOut>;

const BOOK_REFUSED = {
  not_found: () => new ApiError("errors.not_found", 404),
  promotion_closed: () => new ApiError("errors.promotion_closed"),
  promotion_not_started: () => new ApiError("errors.promotion_not_started"),
  promotion_ended: () => new ApiError("errors.promotion_ended"),
};

export const promotionsApi = new Hono<AppEnv>()
  .use("/activity", requireUser)
  .use("/activity_book", requireUser)
  .on(["GET", "POST"], "/activity", async (c) => {
    const db = c.get("db");
    const now_ms = await serverNow(c.env, db);
    const rows = await listForUser(db, c.get("user").id, now_ms);
    return ok(c, { items: rows.map((r) => userPromotionOut(r.promotion, r.booking, c.get("locale"), now_ms)) });
  })
  .post("/activity_book", async (c) => {
    const { id: promotion_id } = read(c, z.object({ id: id() }));
    const db = c.get("db");
    const now_ms = await serverNow(c.env, db);
    const user_id = c.get("user").id;
    const r = await bookPromotion(db, user_id, promotion_id, now_ms);
    if (r.status !== "ok") throw BOOK_REFUSED[r.status]();
    const { promotion, booking } = (await listForUser(db, user_id, now_ms)).find((row) => row.promotion.id === promotion_id)!;
    return ok(c, userPromotionOut(promotion, booking, c.get("locale"), now_ms), "errors.promotion_booked");
  });
