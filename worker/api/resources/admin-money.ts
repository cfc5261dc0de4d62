/** `/api/admin/*` money routes: review queues, payouts, adjustments, money config, ledger check. */
import { desc, eq, inArray, like, or } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { operators, users } from "../../db/schema";
import { cardKeysFor } from "../../domain/crypto/sealing";
import { approveAdjustment, listAdjustments, proposeAdjustment, rejectAdjustment } from "../../domain/adjustments/adjustments";
import { getBankAccount, setBankAccount } from "../../domain/deposits/bank-account";
import { addressOwners } from "../../domain/deposits/address-book";
import { addressRule, parseXpub } from "../../domain/deposits/addresses";
import { createChannel, updateChannel } from "../../domain/deposits/channels";
import { approveDeposit, rejectDeposit, type DecideResult } from "../../domain/deposits/decide";
import { listChannels } from "../../domain/deposits/channels";
import { listDepositsByStatus, type Deposit } from "../../domain/deposits/deposits";
import { getFourEyesThreshold, getSoloLimits, setFourEyesThreshold, WAIT_REASONS, type WaitReason } from "../../domain/deposits/four-eyes";
import { userBalances } from "../../domain/ledger/balances";
import { checkLedger } from "../../domain/ledger/check";
import { userStatement } from "../../domain/ledger/statement";
import { getBindingWaitHours, setBindingWaitHours } from "../../domain/binding/waiting";
import { BINDING_WAIT_MAX_HOURS, BINDING_WAIT_MIN_HOURS } from "../../domain/money/settings";
import { activeExclusion } from "../../domain/limits/limits";
import { getRules, listWithdrawalsByStatus, payoutDetailsFor, payWithdrawal, rejectWithdrawal, setRule } from "../../domain/withdrawals/withdrawals";
import { requireOperator } from "../middleware/auth";
import { deliverNotices } from "../../notices";
import { notifyUser } from "../../../durable-objects/user-channel/channel-api";
import { ApiError, ok, read } from "../envelope";
import { amount, id, int, optionalText, pagination, pathId, text } from "../fields";
import { afterResponse } from "../idempotency";
import { channelOut, depositOut, lineOut, ruleOut, usdt, usdtExact, withdrawalOut } from "../present";
import type { AppEnv } from "../types";
import { moneyFailure } from "./money-errors";
import { termsFailure } from "./terms-errors";

const Reason = z.object({ reason: text({ max: 500, invalid: "errors.reason_required" }) });
const flag = z.preprocess((v) => v === true || v === "1" || v === "on" || v === "true", z.boolean());
/** Fees may be fractions of a cent? No: configured in USDT with up to 2 decimals, or zero. */
const money0 = z.preprocess((v) => (v === "0" || v === 0 || v === "0.00" ? "zero" : v), z.union([z.literal("zero").transform(() => 0), amount()]));

const ChannelBody = Reason.extend({
  currency: text({ max: 10 }).transform((v) => v.toUpperCase()),
  chain: text({ max: 20 }).transform((v) => v.toUpperCase()),
  /** Unused since addresses are per user; kept for channels made before. */
  address: optionalText(128).default(""),
  xpub: optionalText(200).default(""),
  min_amount: amount(),
  enabled: flag,
  sort: int({ min: 0, max: 1000, fallback: 0 }),
});
/** What the operator verified before crediting: the amount that arrived and its reference. */
const ApproveBody = z.object({ amount: amount(), tx_ref: text({ max: 200 }) });
const FourEyesBody = Reason.extend({ threshold: amount() });
const BindingWaitBody = Reason.extend({ hours: int({ min: 1, max: 100_000 }) });
const BankBody = Reason.extend({
  bank: optionalText(100).default(""),
  holder: optionalText(100).default(""),
  account: optionalText(64).default(""),
  branch: optionalText(100).default(""),
  min_amount: amount(),
  enabled: flag,
});
const RuleBody = Reason.extend({ fee_fixed: money0, fee_rate_bp: int({ min: 0, max: 10_000, fallback: 0 }), min_amount: amount(), enabled: flag });
const StatusQuery = (values: readonly [string, ...string[]]) => z.object({ status: z.enum(values, { error: "errors.invalid_field" }).default(values[0]), ...pagination });

export const adminMoneyApi = new Hono<AppEnv>()
  .use("*", requireOperator)
  // Deposits
  .on(["GET", "POST"], "/deposits", async (c) => {
    const q = read(c, StatusQuery(["review", "confirming", "approved", "rejected", "all"]));
    const { items, total } = await listDepositsByStatus(c.get("db"), q.status as never, q);
    return ok(c, { items: await withAccounts(c, await withAddressOwners(c, items.map(adminDepositOut))), total });
  })
  .post("/deposits/:id/approve", async (c) => {
    const { amount: amount_micro, tx_ref } = read(c, ApproveBody);
    const now_ms = Date.now();
    const r = await approveDeposit(c.get("db"), c.get("operator").id, pathId(c.req.param("id")), { amount_micro, tx_ref }, now_ms);
    if (r.status !== "ok") throw decideFailure(r.status);
    await afterResponse(c, notifyUser(c.env, r.deposit.user_id, { type: "balance", reason: "deposit" }));
    await afterResponse(c, deliverNotices(c.env, [r.deposit.user_id], now_ms));
    return ok(c, adminDepositOut(r.deposit), r.deposit.status === "confirming" ? "errors.deposit_needs_second" : "errors.approved");
  })
  .post("/deposits/:id/reject", async (c) => {
    const { reason } = read(c, Reason);
    const now_ms = Date.now();
    const r = await rejectDeposit(c.get("db"), c.get("operator").id, pathId(c.req.param("id")), reason, now_ms);
    if (r.status !== "ok") throw decideFailure(r.status);
    await afterResponse(c, notifyUser(c.env, r.deposit.user_id, { type: "balance", reason: "deposit" }));
    await afterResponse(c, deliverNotices(c.env, [r.deposit.user_id], now_ms));
    return ok(c, adminDepositOut(r.deposit), "errors.rejected");
  })
  // Withdrawals
  .on(["GET", "POST"], "/withdrawals", async (c) => {
    const q = read(c, StatusQuery(["review", "paid", "rejected", "cancelled", "all"]));
    const { items, total } = await listWithdrawalsByStatus(c.get("db"), q.status as never, q);
    const keys = await cardKeysFor(c.env);
    const opened = await Promise.all(items.map((w) => payoutDetailsFor(keys.status === "ok" ? keys.keys : null, w)));
    // Unreadable details (no key here, or altered) leave only the masked destination to show.
    const out = items.map((w, i) => ({ ...withdrawalOut(w), user_id: w.user_id, payout_details: opened[i] ?? "", payout_unreadable: opened[i] === null }));
    return ok(c, { items: await withAccounts(c, out), total });
  })
  .post("/withdrawals/:id/pay", async (c) => {
    const { tx_ref } = read(c, z.object({ tx_ref: text({ max: 200 }) }));
    const now_ms = Date.now();
    const r = await payWithdrawal(c.get("db"), c.get("operator").id, pathId(c.req.param("id")), tx_ref, now_ms);
    if (r.status !== "ok") throw moneyFailure(r.status);
    await afterResponse(c, notifyUser(c.env, r.withdrawal.user_id, { type: "balance", reason: "withdrawal" }));
    await afterResponse(c, deliverNotices(c.env, [r.withdrawal.user_id], now_ms));
    return ok(c, withdrawalOut(r.withdrawal), "errors.paid");
  })
  .post("/withdrawals/:id/reject", async (c) => {
    const { reason } = read(c, Reason);
    const now_ms = Date.now();
    const r = await rejectWithdrawal(c.get("db"), c.get("operator").id, pathId(c.req.param("id")), reason, now_ms);
    if (r.status !== "ok") throw moneyFailure(r.status);
    await afterResponse(c, notifyUser(c.env, r.withdrawal.user_id, { type: "balance", reason: "withdrawal" }));
    await afterResponse(c, deliverNotices(c.env, [r.withdrawal.user_id], now_ms));
    return ok(c, withdrawalOut(r.withdrawal), "errors.rejected");
  })
  // Users and their ledger
  .on(["GET", "POST"], "/users", async (c) => {
    const { q } = read(c, z.object({ q: optionalText(40).default("") }));
    const db = c.get("db");
    const pattern = `%${q.replace(/[%_]/g, "")}%`;
    const rows = await db
      .select({ id: users.id, account: users.account, created_at_ms: users.created_at_ms })
      .from(users)
      .where(q ? or(like(users.account, pattern), eq(users.id, Number(q) || -1)) : undefined)
      .orderBy(desc(users.id))
      .limit(50);
    return ok(c, rows);
  })
  .on(["GET", "POST"], "/users/:id/ledger", async (c) => {
    const user_id = pathId(c.req.param("id"));
    const page = read(c, z.object(pagination));
    const db = c.get("db");
    const user = await db.query.users.findFirst({ where: eq(users.id, user_id), columns: { id: true, account: true } });
    if (!user) throw new ApiError("errors.not_found", 404);
    const balances = await userBalances(db, user_id);
    const { items, total } = await userStatement(db, user_id, page);
    // Shown, never editable: no route ends a cool-off or self-exclusion early.
    const exclusion = await activeExclusion(db, user_id, Date.now());
    return ok(c, {
      user,
      exclusion: exclusion && { kind: exclusion.kind, started_at_ms: exclusion.started_at_ms, until_ms: exclusion.until_ms },
      balances: { available: usdtExact(balances.available_micro), locked_trade: usdtExact(balances.locked_trade_micro), locked_pool: usdtExact(balances.locked_pool_micro), locked_withdrawal: usdtExact(balances.locked_withdrawal_micro), total: usdtExact(balances.total_micro) },
      items: items.map(lineOut),
      total,
    });
  })
  // Adjustments (four eyes)
  .on(["GET", "POST"], "/adjustments", async (c) => {
    const q = read(c, z.object({ status: z.enum(["pending", "approved", "rejected", "all"]).default("pending"), user_id: id().optional(), ...pagination }));
    const { items, total } = await listAdjustments(c.get("db"), q);
    return ok(c, { items: await withAccounts(c, items.map((a) => ({ ...a, amount: usdt(a.amount_micro) }))), total });
  })
  .post("/adjustments/new", async (c) => {
    const body = read(c, Reason.extend({ user_id: id(), direction: z.enum(["credit", "debit"], { error: "errors.invalid_field" }), amount: amount() }));
    const r = await proposeAdjustment(c.get("db"), c.get("operator").id, { user_id: body.user_id, direction: body.direction, amount_micro: body.amount, reason: body.reason }, Date.now());
    if (r.status !== "ok") throw new ApiError("errors.not_found", 404);
    return ok(c, { id: r.adjustment.id }, "errors.submitted");
  })
  .post("/adjustments/:id/approve", async (c) => {
    const r = await approveAdjustment(c.get("db"), c.get("operator").id, pathId(c.req.param("id")), Date.now());
    if (r.status !== "ok") throw moneyFailure(r.status);
    await afterResponse(c, notifyUser(c.env, r.adjustment.user_id, { type: "balance", reason: "adjustment" }));
    return ok(c, { id: r.adjustment.id, status: r.adjustment.status }, "errors.approved");
  })
  .post("/adjustments/:id/reject", async (c) => {
    const { reason } = read(c, Reason);
    const r = await rejectAdjustment(c.get("db"), c.get("operator").id, pathId(c.req.param("id")), reason, Date.now());
    if (r.status !== "ok") throw moneyFailure(r.status);
    return ok(c, { id: r.adjustment.id, status: r.adjustment.status }, "errors.rejected");
  })
  // Money configuration
  .on(["GET", "POST"], "/money_config", async (c) => {
    const db = c.get("db");
    const [channels, bank, rules, four_eyes_micro, solo, binding_wait_hours] = await Promise.all([listChannels(db, { only_enabled: false }), getBankAccount(db), getRules(db), getFourEyesThreshold(db), getSoloLimits(db), getBindingWaitHours(db)]);
    return ok(c, {
      channels: channels.map(channelOut),
      bank: { ...bank, min_amount: usdt(bank.min_amount_micro) },
      rules: { trc20: ruleOut(rules.trc20), bank: ruleOut(rules.bank) },
      four_eyes: {
        threshold: usdt(four_eyes_micro),
        threshold_micro: four_eyes_micro,
        // What one operator may credit alone in 24 hours (set by migrations, not here).
        operator_24h_micro: solo.operator_24h_micro,
        user_24h_micro: solo.user_24h_micro,
      },
      binding_wait: { hours: binding_wait_hours, min_hours: BINDING_WAIT_MIN_HOURS, max_hours: BINDING_WAIT_MAX_HOURS },
    });
  })
  .post("/binding_wait", async (c) => {
    const { reason, hours } = read(c, BindingWaitBody);
    const r = await setBindingWaitHours(c.get("db"), c.get("operator").id, hours, reason, Date.now());
    if (r.status !== "ok") throw new ApiError("errors.binding_wait_range", 200, { min: BINDING_WAIT_MIN_HOURS, max: BINDING_WAIT_MAX_HOURS }, { min_hours: BINDING_WAIT_MIN_HOURS, max_hours: BINDING_WAIT_MAX_HOURS });
    return ok(c, { hours }, "errors.saved");
  })
  .post("/deposit_four_eyes", async (c) => {
    const { reason, threshold } = read(c, FourEyesBody);
    const r = await setFourEyesThreshold(c.get("db"), c.get("operator").id, threshold, reason, Date.now());
    if (r.status !== "ok") throw new ApiError("errors.four_eyes_ceiling", 200, { max: usdt(r.max_micro) }, { max_micro: r.max_micro });
    return ok(c, null, "errors.saved");
  })
  .post("/deposit_channels", async (c) => {
    const { reason, min_amount, ...rest } = read(c, ChannelBody);
    checkXpub(rest.chain, rest.xpub);
    const created = await createChannel(c.get("db"), c.get("operator").id, { ...rest, min_amount_micro: min_amount }, reason, Date.now());
    return ok(c, { id: created.id }, "errors.saved");
  })
  .post("/deposit_channels/:id", async (c) => {
    const { reason, min_amount, ...rest } = read(c, ChannelBody);
    checkXpub(rest.chain, rest.xpub);
    const r = await updateChannel(c.get("db"), c.get("operator").id, pathId(c.req.param("id")), { ...rest, min_amount_micro: min_amount }, reason, Date.now());
    if (r.status === "not_found") throw new ApiError("errors.not_found", 404);
    if (r.status === "four_eyes_same_operator") throw new ApiError("errors.channel_open_four_eyes");
    return ok(c, { enabled: r.enabled }, "errors.saved");
  })
  .post("/bank_account", async (c) => {
    const { reason, min_amount, ...rest } = read(c, BankBody);
    if (rest.enabled && (!rest.bank || !rest.holder || !rest.account)) throw new ApiError("errors.incomplete");
    const r = await setBankAccount(c.get("db"), c.get("operator").id, { ...rest, min_amount_micro: min_amount }, reason, Date.now());
    if (r.status !== "ok") throw new ApiError("errors.bank_open_four_eyes");
    return ok(c, { enabled: r.enabled }, "errors.saved");
  })
  .post("/withdrawal_rules/:channel", async (c) => {
    const channel = c.req.param("channel");
    if (channel !== "trc20" && channel !== "bank") throw new ApiError("errors.not_found", 404);
    const { reason, fee_fixed, min_amount, ...rest } = read(c, RuleBody);
    const r = await setRule(c.get("db"), c.get("operator").id, channel, { fee_fixed_micro: fee_fixed, min_amount_micro: min_amount, ...rest }, reason, Date.now());
    if (r.status === "out_of_bounds") throw termsFailure(r);
    // Changed fees or minimum wait for a second operator (decision 121); the switch is saved.
    if (r.status === "proposed") return ok(c, { proposal_id: r.proposal_id }, "errors.terms_proposed");
    return ok(c, null, "errors.saved");
  })
  .on(["GET", "POST"], "/ledger/check", async (c) => {
    const r = await checkLedger(c.get("db"));
    return ok(c, { ...r, debits: usdtExact(r.debits_micro), credits: usdtExact(r.credits_micro), balance_sum: usdtExact(r.balance_sum_micro) });
  });

/** Adds the account name to rows that carry a user_id (queues show who asked). */
async function withAccounts<T extends { user_id: number }>(c: { get(k: "db"): AppEnv["Variables"]["db"] }, rows: T[]) {
  if (rows.length === 0) return [];
  const db = c.get("db");
  const ids = [...new Set(rows.map((r) => r.user_id))];
  const found = await db.select({ id: users.id, account: users.account }).from(users).where(or(...ids.map((i) => eq(users.id, i))));
  return rows.map((r) => ({ ...r, account: found.find((u) => u.id === r.user_id)?.account ?? "" }));
}

/**
 * An xpub is accepted only when it parses as an extended PUBLIC key and the chain has an
 * address rule to derive with; an empty one leaves the channel without addresses (hidden).
 */
function checkXpub(chain: string, xpub: string) {
  if (xpub === "") return;
  const parsed = parseXpub(xpub);
  if (parsed.status === "private_key") throw new ApiError("errors.xpub_private");
  if (parsed.status !== "ok") throw new ApiError("errors.xpub_invalid");
  if (!addressRule(chain)) throw new ApiError("errors.xpub_chain_unsupported", 200, { chain });
}

/** A deposit as operators see it: the user's view plus the verification and who made it. */
function adminDepositOut(d: Deposit) {
  return {
    ...depositOut(d),
    user_id: d.user_id,
    tx_ref: d.tx_ref,
    approved_by: d.approved_by,
    confirmed_by: d.confirmed_by,
    four_eyes: d.four_eyes_micro === null ? null : usdt(d.four_eyes_micro),
    four_eyes_micro: d.four_eyes_micro,
    /** Why a first approval waits for a second operator (empty when it did not). */
    wait_reasons: d.wait_reason.split(",").filter((r): r is WaitReason => (WAIT_REASONS as readonly string[]).includes(r)),
  };
}

function decideFailure(status: Exclude<DecideResult["status"], "ok">): ApiError {
  switch (status) {
    case "four_eyes_same_operator":
      return new ApiError("errors.four_eyes_same_operator", 403);
    case "four_eyes_mismatch":
      return new ApiError("errors.four_eyes_mismatch", 409);
    case "four_eyes_required":
      return new ApiError("errors.four_eyes", 403);
    default:
      return moneyFailure(status);
  }
}

/**
 * Adds whose deposit address received each deposit, and the operators' names of a two-step
 * approval, so the queue shows them without another lookup.
 */
async function withAddressOwners<T extends { address: string; approved_by: number | null; confirmed_by: number | null }>(c: { get(k: "db"): AppEnv["Variables"]["db"] }, rows: T[]) {
  if (rows.length === 0) return [];
  const db = c.get("db");
  const owners = await addressOwners(db, rows.map((r) => r.address));
  const opIds = [...new Set(rows.flatMap((r) => [r.approved_by, r.confirmed_by]).filter((x): x is number => x !== null))];
  const ops = opIds.length === 0 ? [] : await db.select({ id: operators.id, account: operators.account }).from(operators).where(inArray(operators.id, opIds));
  const opName = (id: number | null) => (id === null ? null : (ops.find((o) => o.id === id)?.account ?? `#${id}`));
  const ownerIds = [...new Set(owners.map((o) => o.user_id))];
  const ownerUsers = ownerIds.length === 0 ? [] : await db.select({ id: users.id, account: users.account }).from(users).where(inArray(users.id, ownerIds));
  return rows.map((r) => {
    const owner = owners.find((o) => o.address === r.address);
    return {
      ...r,
      address_owner: owner ? { user_id: owner.user_id, account: ownerUsers.find((u) => u.id === owner.user_id)?.account ?? "", index: owner.derivation_index } : null,
      approved_by_account: opName(r.approved_by),
      confirmed_by_account: opName(r.confirmed_by),
    };
  });
}
