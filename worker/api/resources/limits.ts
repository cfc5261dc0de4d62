/**
 * `/api/user/` responsible trading and exports: `limits`, `limits/set`, `self_exclude`, and the
 * CSV downloads `statement.csv` and `orders.csv` (GET, with the session token header).
 */
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { serverNow } from "../../clock";
import { isoUtc, toCsv, utcDayStart } from "../../domain/export/csv";
import { userStatementBetween } from "../../domain/ledger/statement";
import { activeExclusion, noteLimitReached, readLimits, selfExclude, setLimits, type LimitView, type OrderRefusal } from "../../domain/limits/limits";
import { EXCLUSION_DAYS, exclusionDaysValid, LIMIT_KINDS, type ExclusionKind, type LimitKind } from "../../domain/limits/rules";
import { formatPriceE8, parseAmount } from "../../domain/money/units";
import { userOrdersBetween } from "../../domain/trades/orders";
import { requireUser } from "../middleware/auth";
import { ApiError, ok, read } from "../envelope";
import { int } from "../fields";
import { usdtExact } from "../present";
import type { AppEnv } from "../types";
import { confirmCode, confirmPassword, requirePassword } from "./money-guards";
import { afterResponse } from "../idempotency";
import { deliverNotices } from "../../notices";

/** Counts, not money: the open-orders limit. */
const MAX_OPEN_ORDERS_CEILING = 1_000;

/** One limit's field: absent leaves it, "" removes it, else an amount (or a count). */
function limitField(kind: LimitKind) {
  return z.unknown().transform((v, ctx): number | null | undefined => {
    if (v === undefined) return undefined;
    if (v === null || (typeof v === "string" && v.trim() === "")) return null;
    const n = kind === "max_open_orders" ? countOf(v) : amountOf(v);
    if (n === null) {
      ctx.addIssue({ code: "custom", message: "errors.invalid_field" });
      return z.NEVER;
    }
    return n;
  }).optional();
}

function countOf(v: unknown): number | null {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d{1,4}$/.test(v.trim()) ? Number(v.trim()) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= MAX_OPEN_ORDERS_CEILING ? n : null;
}

function amountOf(v: unknown): number | null {
  const r = parseAmount(v);
  return r.status === "ok" && r.amount_micro > 0 ? r.amount_micro : null;
}

const SetBody = z.object(Object.fromEntries(LIMIT_KINDS.map((k) => [k, limitField(k)])) as Record<LimitKind, ReturnType<typeof limitField>>);

const ExcludeBody = z.object({
  kind: z.enum(["cool_off", "exclusion"], { error: "errors.invalid_field" }),
  days: int({ min: 1, max: 100_000 }),
  password: confirmPassword,
  // With two-factor on, a stolen session and password cannot lock the owner out for years.
  code: confirmCode,
});

const RangeQuery = z.object({ from: z.string({ error: "errors.invalid_field" }), to: z.string({ error: "errors.invalid_field" }) });

/** A download covers at most a year; its last day counts whole. */
const MAX_RANGE_DAYS = 366;
/** At most this many transfers or orders per file: far above a year of ordinary use. */
const MAX_ROWS = 10_000;

function valueOut(kind: LimitKind, v: number | null) {
  if (v === null) return { value: null, value_micro: null };
  return kind === "max_open_orders" ? { value: String(v), value_micro: null } : { value: usdtExact(v), value_micro: v };
}

function limitOut(l: LimitView) {
  return { kind: l.kind, ...valueOut(l.kind, l.value), pending: l.pending && { ...valueOut(l.kind, l.pending.value), effective_at_ms: l.pending.effective_at_ms } };
}

async function limitsAnswer(c: Context<AppEnv>, list: LimitView[], now_ms: number) {
  const exclusion = await activeExclusion(c.get("db"), c.get("user").id, now_ms);
  return { list: list.map(limitOut), exclusion: exclusion && { kind: exclusion.kind, started_at_ms: exclusion.started_at_ms, until_ms: exclusion.until_ms }, now_ms, exclusion_days: EXCLUSION_DAYS };
}

function rangeOf(c: Context<AppEnv>): { from_ms: number; to_ms: number; from: string; to: string } {
  const q = read(c, RangeQuery);
  const from_ms = utcDayStart(q.from.trim());
  const to_day = utcDayStart(q.to.trim());
  if (from_ms === null) throw new ApiError("errors.invalid_field", 200, { field: "from" }, { field: "from" });
  if (to_day === null || to_day < from_ms) throw new ApiError("errors.invalid_field", 200, { field: "to" }, { field: "to" });
  const to_ms = to_day + 86_400_000;
  if (to_ms - from_ms > MAX_RANGE_DAYS * 86_400_000) throw new ApiError("errors.export_range_too_long", 200, { days: MAX_RANGE_DAYS }, { max_days: MAX_RANGE_DAYS });
  return { from_ms, to_ms, from: q.from.trim(), to: q.to.trim() };
}

function csvResponse(c: Context<AppEnv>, name: string, body: string) {
  return c.body(body, 200, { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${name}"`, "cache-control": "no-store" });
}

export const STATEMENT_CSV_HEADER = ["time_utc", "transfer_id", "account", "code", "amount_usdt", "balance_after_usdt", "ref_type", "ref_id", "counterparty"] as const;
export const ORDERS_CSV_HEADER = ["order_id", "placed_at_utc", "symbol", "direction", "seconds", "stake_usdt", "fee_usdt", "entry_price", "delivery_at_utc", "status", "settlement_price", "payout_usdt", "profit_usdt", "settled_at_utc"] as const;

export const limitsApi = new Hono<AppEnv>()
  .use("*", requireUser)
  .post("/limits", async (c) => {
    const now_ms = await serverNow(c.env, c.get("db"));
    return ok(c, await limitsAnswer(c, await readLimits(c.get("db"), c.get("user").id, now_ms), now_ms));
  })
  .post("/limits/set", async (c) => {
    const body = read(c, SetBody);
    const changes = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Partial<Record<LimitKind, number | null>>;
    if (Object.keys(changes).length === 0) throw new ApiError("errors.incomplete");
    const now_ms = await serverNow(c.env, c.get("db"));
    const list = await setLimits(c.get("db"), c.get("user").id, changes, now_ms);
    return ok(c, await limitsAnswer(c, list, now_ms), "errors.saved");
  })
  .post("/self_exclude", async (c) => {
    const body = read(c, ExcludeBody);
    const kind = body.kind as ExclusionKind;
    if (!exclusionDaysValid(kind, body.days)) throw new ApiError(`errors.${kind}_days`, 200, EXCLUSION_DAYS[kind], { field: "days", ...EXCLUSION_DAYS[kind] });
    // Stopping one's own trading for months is chosen with the password, not a session alone.
    await requirePassword(c, body.password, body.code);
    const now_ms = await serverNow(c.env, c.get("db"));
    const row = await selfExclude(c.get("db"), c.get("user").id, kind, body.days, now_ms);
    return ok(c, { kind: row.kind, started_at_ms: row.started_at_ms, until_ms: row.until_ms }, "errors.saved");
  })
  .get("/statement.csv", async (c) => {
    const range = rangeOf(c);
    const lines = await userStatementBetween(c.get("db"), c.get("user").id, range, MAX_ROWS);
    const rows = lines.map((l) => [isoUtc(l.created_at_ms), l.transfer_id, l.account, l.code, usdtExact(l.amount_micro), usdtExact(l.balance_after_micro), l.ref_type, l.ref_id, l.counterparty]);
    return csvResponse(c, `statement-${range.from}-${range.to}.csv`, toCsv(STATEMENT_CSV_HEADER, rows));
  })
  .get("/orders.csv", async (c) => {
    const range = rangeOf(c);
    const list = await userOrdersBetween(c.get("db"), c.get("user").id, range, MAX_ROWS);
    const money = (v: number | null) => (v === null ? null : usdtExact(v));
    const rows = list.map((o) => [o.id, isoUtc(o.created_at_ms), o.symbol, o.direction, o.seconds, usdtExact(o.stake_micro), usdtExact(o.fee_micro), o.entry_price_e8 === null ? null : formatPriceE8(o.entry_price_e8), isoUtc(o.delivery_at_ms), o.status, o.settlement_price_e8 === null ? null : formatPriceE8(o.settlement_price_e8), money(o.payout_micro), o.status === "open" ? null : money(o.profit_micro), isoUtc(o.settled_at_ms)]);
    return csvResponse(c, `orders-${range.from}-${range.to}.csv`, toCsv(ORDERS_CSV_HEADER, rows));
  });

/**
 * The words of an order the database refused for the user's own limit or exclusion. The first
 * refusal of a limit in its period also leaves a notification.
 */
export async function orderRefusalError(c: Context<AppEnv>, user_id: number, r: OrderRefusal): Promise<ApiError> {
  const db = c.get("db");
  if (r.status === "self_excluded") {
    const until_ms = (await activeExclusion(db, user_id, Date.now()))?.until_ms ?? Date.now();
    return new ApiError("errors.self_excluded", 200, { until: new Date(until_ms) }, { until_ms });
  }
  const now_ms = Date.now();
  const resets_at_ms = await noteLimitReached(db, user_id, r.limit, now_ms);
  // The first refusal in a period wrote a notice: the badge and the push hear it.
  await afterResponse(c, deliverNotices(c.env, [user_id], now_ms));
  return new ApiError(`errors.trading_limit_${r.limit}`, 200, { resets: new Date(resets_at_ms) }, { limit: r.limit, resets_at_ms });
}
