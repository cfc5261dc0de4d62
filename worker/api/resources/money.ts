/** `/api/user/*` money routes: recharge, withdraw, their records, and the ledger statement. */
import { Hono } from "hono";
import { z } from "zod";
import { eq } from "drizzle-orm";
import { uploads } from "../../db/schema";
import { listUserDeposits, submitDeposit } from "../../domain/deposits/deposits";
import { userBalances } from "../../domain/ledger/balances";
import { statementEntry, userStatement } from "../../domain/ledger/statement";
import { cancelWithdrawal, getRules, listUserWithdrawals, requestWithdrawal } from "../../domain/withdrawals/withdrawals";
import { serverNow } from "../../clock";
import { activeExclusion } from "../../domain/limits/limits";
import { requireUser } from "../middleware/auth";
import { notifyUser } from "../../../durable-objects/user-channel/channel-api";
import { ApiError, ok, read } from "../envelope";
import { amount, id, optionalId, optionalText, pagination, text } from "../fields";
import { afterResponse, idempotencyKey } from "../idempotency";
import { depositOut, lineOut, ruleOut, usdt, withdrawalOut } from "../present";
import type { AppEnv } from "../types";
import { failWith, moneyFailure } from "./money-errors";
import { cardKeysOrNull, confirmCode, confirmPassword, requireMoneyMovementOpen, requirePassword } from "./money-guards";

/** `image` is the `data.url` the upload answered ("/files/<id>") or the bare id. */
const imageRef = text({ max: 200, invalid: "errors.image_unknown" }).transform((v) => v.replace(/^.*\/files\//, ""));

const RechargeBody = z.object({
  kind: z.enum(["crypto", "bank"], { error: "errors.invalid_field" }).default("crypto"),
  channel_id: optionalId(),
  amount: amount(),
  tx_hash: optionalText(200).default(""),
  image: imageRef,
});

/** `terms_version`: the channel's terms the form showed (its fee); our pages always send it. */
const WithdrawBody = z.object({ amount: amount(), wallet_id: optionalId(), bank_id: optionalId(), password: confirmPassword, code: confirmCode, terms_version: optionalId().transform((v) => v ?? undefined) });

export const moneyApi = new Hono<AppEnv>()
  .use("*", requireUser)
  .post("/recharge", async (c) => {
    requireMoneyMovementOpen(c);
    const body = read(c, RechargeBody);
    const user = c.get("user");
    if (body.kind === "crypto" && body.channel_id === null) throw new ApiError("errors.incomplete", 200, {}, { field: "channel_id" });
    if (body.kind === "crypto" && !body.tx_hash) throw new ApiError("errors.incomplete", 200, {}, { field: "tx_hash" });
    const image = await c.get("db").query.uploads.findFirst({ where: eq(uploads.id, body.image) });
    if (!image || image.user_id !== user.id) throw new ApiError("errors.image_unknown");
    const r = await submitDeposit(
      c.get("db"),
      { user_id: user.id, kind: body.kind, channel_id: body.channel_id, amount_micro: body.amount, tx_hash: body.tx_hash, image_id: image.id, request_key: idempotencyKey(c) },
      Date.now(),
    );
    if (r.status === "below_minimum") throw new ApiError("errors.below_minimum", 200, { min: usdt(r.min_amount_micro!) });
    if (r.status === "too_many_pending") throw new ApiError("errors.deposits_pending_limit", 200, { max: r.max });
    if (r.status === "self_excluded") {
      const until_ms = (await activeExclusion(c.get("db"), user.id, Date.now()))?.until_ms ?? Date.now();
      throw new ApiError("errors.self_excluded_deposit", 200, { until: new Date(until_ms) }, { until_ms });
    }
    if (r.status !== "ok") throw new ApiError(`errors.${r.status}`);
    return ok(c, { id: r.deposit.id, deposit: depositOut(r.deposit) }, "errors.submitted");
  })
  .post("/recharge_list", async (c) => {
    const page = read(c, z.object(pagination));
    const { items, total } = await listUserDeposits(c.get("db"), c.get("user").id, page);
    return ok(c, { items: items.map(depositOut), total, ...page });
  })
  .post("/withdraw_info", async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    // Real money only: demo money is never withdrawable.
    const [balances, rules] = await Promise.all([userBalances(db, user.id), getRules(db)]);
    return ok(c, {
      available: usdt(balances.available_micro),
      available_micro: balances.available_micro,
      rules: { trc20: ruleOut(rules.trc20), bank: ruleOut(rules.bank) },
      paused_until: user.withdraw_paused_until_ms > Date.now() ? user.withdraw_paused_until_ms : null,
      // The server's time, so the page says which bound destinations are still waiting to open.
      now_ms: await serverNow(c.env, db),
    });
  })
  .post("/withdraw", async (c) => {
    requireMoneyMovementOpen(c);
    const body = read(c, WithdrawBody);
    const user = c.get("user");
    if ((body.wallet_id === null) === (body.bank_id === null)) throw new ApiError("errors.target_unknown");
    const request_key = idempotencyKey(c);
    await requirePassword(c, body.password, body.code);
    const input = { user_id: user.id, amount_micro: body.amount, wallet_id: body.wallet_id, bank_id: body.bank_id, request_key, card_keys: await cardKeysOrNull(c), terms_version: body.terms_version };
    // The server's clock (the test clock where enabled): the allow-list's wait is tested by moving it.
    const r = await requestWithdrawal(c.get("db"), input, await serverNow(c.env, c.get("db")));
    if (r.status === "below_minimum") throw new ApiError("errors.below_minimum", 200, { min: usdt(r.min_amount_micro) });
    if (r.status === "destination_waiting") throw new ApiError("errors.destination_waiting", 200, { opens: new Date(r.opens_at_ms) }, { opens_at: r.opens_at_ms });
    if (r.status === "paused") throw new ApiError("errors.withdraw_paused", 200, { until: new Date(r.until_ms) }, { until: r.until_ms });
    // The channel's fee or minimum changed since the form was shown: the new rule, to show again.
    if (r.status === "terms_changed") throw new ApiError("errors.withdraw_terms_changed", 200, {}, { rule: ruleOut(r.rule) });
    if (r.status !== "ok") throw new ApiError(`errors.${r.status}`);
    if (!r.replayed) await afterResponse(c, notifyUser(c.env, user.id, { type: "balance", reason: "withdrawal" }));
    const w = withdrawalOut(r.withdrawal);
    return ok(c, { ...w, withdrawal: w }, "errors.submitted");
  })
  .post("/withdraw_cancel", async (c) => {
    const body = read(c, z.object({ id: id() }));
    const user = c.get("user");
    const r = await cancelWithdrawal(c.get("db"), user.id, body.id, Date.now());
    if (r.status !== "ok") failWith(moneyFailure(r.status));
    await afterResponse(c, notifyUser(c.env, user.id, { type: "balance", reason: "withdrawal_cancel" }));
    return ok(c, withdrawalOut(r.withdrawal), "errors.cancelled");
  })
  .post("/withdraw_list", async (c) => {
    const page = read(c, z.object(pagination));
    const { items, total } = await listUserWithdrawals(c.get("db"), c.get("user").id, page);
    return ok(c, { items: items.map(withdrawalOut), total, ...page });
  })
  .post("/records", async (c) => {
    const page = read(c, z.object(pagination));
    const { items, total } = await userStatement(c.get("db"), c.get("user").id, page);
    return ok(c, { items: items.map(lineOut), total, ...page });
  })
  .post("/record_detail", async (c) => {
    const body = read(c, z.object({ id: id() }));
    const lines = await statementEntry(c.get("db"), c.get("user").id, body.id);
    if (!lines) throw new ApiError("errors.not_found", 404);
    return ok(c, { items: lines.map(lineOut) });
  });
