/** `/api/user/*` binding routes: TRC20 wallet addresses and bank cards. */
import { Hono } from "hono";
import { z } from "zod";
import { addBankCard, addWallet, deleteBankCard, deleteWallet, listBankCards, listWallets, MAX_BOUND } from "../../domain/binding/binding";
import { serverNow } from "../../clock";
import { requireUser } from "../middleware/auth";
import { ApiError, ok, read } from "../envelope";
import { id, text } from "../fields";
import { bankCardOut, walletOut } from "../present";
import type { AppEnv } from "../types";
import { cardKeysOrNull, confirmCode, confirmPassword, requirePassword } from "./money-guards";

const WalletBody = z.object({
  chain: text({ max: 20 }).default("TRC20"),
  address: text({ max: 64, invalid: "errors.address_invalid" }),
  password: confirmPassword,
  code: confirmCode,
});
const BankBody = z.object({
  name: text({ max: 64 }),
  bank: text({ max: 64 }),
  card_number: text({ max: 30, invalid: "errors.card_invalid" }),
  password: confirmPassword,
  code: confirmCode,
});

export const bindingApi = new Hono<AppEnv>()
  .use("*", requireUser)
  .post("/wallet_list", async (c) => ok(c, (await listWallets(c.get("db"), c.get("user").id)).map(walletOut)))
  .post("/add_wallet", async (c) => {
    const { password, code, ...body } = read(c, WalletBody);
    // Where money may go is chosen with the password, not with a session alone.
    await requirePassword(c, password, code);
    const r = await addWallet(c.get("db"), { user_id: c.get("user").id, ...body }, await serverNow(c.env, c.get("db")));
    if (r.status === "duplicate") throw new ApiError("errors.wallet_duplicate");
    if (r.status === "limit_reached") throw new ApiError("errors.limit_reached", 200, { max: MAX_BOUND });
    if (r.status !== "ok") throw new ApiError(`errors.${r.status}`);
    return ok(c, { id: r.wallet.id, wallet: walletOut(r.wallet) }, "errors.saved");
  })
  .post("/del_wallet", async (c) => {
    const r = await deleteWallet(c.get("db"), c.get("user").id, read(c, z.object({ id: id() })).id, Date.now());
    if (r.status !== "ok") throw new ApiError("errors.not_found", 404);
    return ok(c, null, "errors.deleted");
  })
  .post("/bank_list", async (c) => ok(c, (await listBankCards(c.get("db"), c.get("user").id)).map(bankCardOut)))
  .post("/add_bank", async (c) => {
    const { password, code, ...body } = read(c, BankBody);
    // Never store a card in the clear: without a key (production without CARD_KEY), refuse.
    const keys = await cardKeysOrNull(c);
    if (!keys) throw new ApiError("errors.card_unavailable", 503);
    await requirePassword(c, password, code);
    const r = await addBankCard(c.get("db"), keys, { user_id: c.get("user").id, ...body }, await serverNow(c.env, c.get("db")));
    if (r.status === "duplicate") throw new ApiError("errors.card_duplicate");
    if (r.status === "limit_reached") throw new ApiError("errors.limit_reached", 200, { max: MAX_BOUND });
    if (r.status !== "ok") throw new ApiError(`errors.${r.status}`);
    return ok(c, { id: r.card.id, card: bankCardOut(r.card) }, "errors.saved");
  })
  .post("/del_bank", async (c) => {
    const r = await deleteBankCard(c.get("db"), c.get("user").id, read(c, z.object({ id: id() })).id, Date.now());
    if (r.status !== "ok") throw new ApiError("errors.not_found", 404);
    return ok(c, null, "errors.deleted");
  });
