import { beforeAll, describe, expect, it } from "vitest";
import { checkLedger } from "../../../worker/domain/ledger/check";
import { requestWithdrawal } from "../../../worker/domain/withdrawals/withdrawals";
import { call, db, newUser, page, seed } from "../helpers";
import { approve, balance, bindWallet, CARD, fundedUser, operatorToken, PASSWORD, recharge, rkey, TRC20, upload, USDT, openBindings } from "./helpers";

beforeAll(() => seed());

describe("recharge", () => {
  it("channels and the bank account come from operator config", async () => {
    const ways = await call("/api/index/recharge_way");
    expect(ways.data.map((c: { chain: string }) => c.chain)).toEqual(["TRC20", "ERC20"]);
    expect(ways.data[0]).toMatchObject({ currency: "USDT", min_amount: "10.00" });
    const bank = await call("/api/index/getBA", undefined, { method: "GET" });
    expect(bank.data).toMatchObject({ enabled: true, bank: "Demo Bank", min_amount: "100.00" });
    expect((await call("/api/index/recharge_way1")).data).toEqual(bank.data);
  });

  it("submitted → approved credits the ledger once; the records say so", async () => {
    const u = await newUser();
    const dep = await recharge(u.token, "250.75");
    expect(dep.code).toBe(1);
    expect(dep.data.deposit).toMatchObject({ status: "review", amount: "250.75" });
    expect(await balance(u.token)).toEqual({ available: 0, locked: 0 });
    const op = await operatorToken();
    const queue = await call("/api/admin/deposits?status=review&row=100", undefined, { token: op, method: "GET" });
    expect(queue.data.items.some((d: { id: number; account: string }) => d.id === dep.data.id && d.account === u.account)).toBe(true);
    expect((await approve(op, dep.data.id, "250.75")).code).toBe(1);
    expect(await balance(u.token)).toEqual({ available: 250_750_000, locked: 0 });
    const again = await approve(op, dep.data.id, "250.75");
    expect(again.status).toBe(409);
    expect(again.data.error).toBe("state_conflict");
    expect((await call(`/api/admin/deposits/${dep.data.id}/reject`, { reason: "late" }, { token: op })).status).toBe(409);
    expect(await balance(u.token)).toEqual({ available: 250_750_000, locked: 0 });
    const list = await call("/api/user/recharge_list", {}, { token: u.token });
    expect(list.data.items[0]).toMatchObject({ id: dep.data.id, status: "approved", amount: "250.75" });
    const statement = await call("/api/user/records", {}, { token: u.token });
    expect(statement.data.items[0]).toMatchObject({ code: "deposit", account: "available", amount: "250.75", balance_after: "250.75" });
  });

  it("rejected shows the reason and moves no money", async () => {
    const u = await newUser();
    const dep = await recharge(u.token, "30");
    const op = await operatorToken();
    expect((await call(`/api/admin/deposits/${dep.data.id}/reject`, {}, { token: op })).data.error).toBe("incomplete");
    expect((await call(`/api/admin/deposits/${dep.data.id}/reject`, { reason: "No such transaction on chain" }, { token: op })).code).toBe(1);
    const list = await call("/api/user/recharge_list", {}, { token: u.token });
    expect(list.data.items[0]).toMatchObject({ status: "rejected", reason: "No such transaction on chain" });
    expect(await balance(u.token)).toEqual({ available: 0, locked: 0 });
    expect((await approve(op, dep.data.id, "30")).status).toBe(409);
  });

  it("refuses amounts below the minimum, bad amounts and foreign screenshots", async () => {
    const u = await newUser();
    expect((await recharge(u.token, "9.99")).msg).toBe("The minimum amount is 10.00 USDT.");
    expect((await recharge(u.token, "10.001")).data.error).toBe("amount_decimals");
    expect((await recharge(u.token, "-5")).data.error).toBe("amount_invalid");
    const other = await newUser();
    const img = await upload(other.token);
    const r = await call("/api/user/recharge", { channel_id: 1, amount: "20", tx_hash: "x", image: img.data.url }, { token: u.token });
    expect(r.data.error).toBe("image_unknown");
  });

  it("the same key and body replays; the same key with another body is refused", async () => {
    const u = await newUser();
    const img = await upload(u.token);
    const body = { channel_id: 1, amount: "40", tx_hash: "0xfeed", image: img.data.url };
    const key = rkey();
    const [a, b] = await Promise.all([
      call("/api/user/recharge", body, { token: u.token, headers: { "idempotency-key": key } }),
      call("/api/user/recharge", body, { token: u.token, headers: { "idempotency-key": key } }),
    ]);
    expect(a.code).toBe(1);
    expect(b.code).toBe(1);
    expect(b.data.id).toBe(a.data.id);
    const c = await call("/api/user/recharge", { ...body, amount: "41" }, { token: u.token, headers: { "idempotency-key": key } });
    expect(c.data.error).toBe("idempotency_conflict");
    expect((await call("/api/user/recharge_list", {}, { token: u.token })).data.total).toBe(1);
  });

  it("one transaction hash pays in once per channel, whoever sends it, in any letter case", async () => {
    const a = await newUser();
    const b = await newUser();
    const hash = `0x${rkey().replace(/[^0-9a-f]/g, "")}ABCDEF`;
    const submit = async (token: string, tx_hash: string, channel_id = 1) => {
      const img = await upload(token);
      return call("/api/user/recharge", { channel_id, amount: "60", tx_hash, image: img.data.url }, { token, headers: { "idempotency-key": rkey() } });
    };
    const first = await submit(a.token, hash);
    expect(first.code).toBe(1);
    expect(first.data.deposit.tx_hash).toBe(hash.toLowerCase());
    // Under review: the same transaction again (also lower-cased, or padded) is refused.
    expect((await submit(a.token, hash.toLowerCase())).data.error).toBe("tx_hash_used");
    const again = await submit(b.token, `  ${hash}  `);
    expect(again.data.error).toBe("tx_hash_used");
    expect(again.msg).toBe("This transaction hash has already been submitted. Check the hash, or contact customer service.");
    // Racing submissions of one hash: one deposit, the other refused.
    const other = `0x${rkey().replace(/[^0-9a-f]/g, "")}99`;
    const raced = await Promise.all([submit(a.token, other), submit(b.token, other)]);
    expect(raced.map((r) => r.code).sort()).toEqual([0, 1]);
    // Another channel is another chain: the hash is its own there.
    const channels = (await call("/api/index/recharge_way")).data as { id: number; chain: string }[];
    const erc20 = channels.find((c) => c.chain === "ERC20")!;
    expect((await submit(a.token, hash, erc20.id)).code).toBe(1);
    // A rejected deposit frees its hash (a typo, a transfer that never arrived).
    const op = await operatorToken();
    expect((await call(`/api/admin/deposits/${first.data.id}/reject`, { reason: "wrong amount" }, { token: op })).code).toBe(1);
    expect((await submit(b.token, hash)).code).toBe(1);
  });

  it("bank transfer recharges go to the platform bank account", async () => {
    const u = await newUser();
    const img = await upload(u.token);
    const r = await call("/api/user/recharge", { kind: "bank", amount: "150", image: img.data.url }, { token: u.token, headers: { "idempotency-key": rkey() } });
    expect(r.code).toBe(1);
    expect(r.data.deposit.destination).toContain("Demo Bank");
    expect((await call("/api/user/recharge", { kind: "bank", amount: "99", image: img.data.url }, { token: u.token })).data.error).toBe("below_minimum");
  });
});

describe("binding", () => {
  it("TRC20 addresses are checked with their checksum", async () => {
    const u = await newUser();
    const bad = TRC20[0].slice(0, -1) + (TRC20[0].endsWith("S") ? "T" : "S");
    expect((await call("/api/user/add_wallet", { chain: "TRC20", address: bad, password: PASSWORD }, { token: u.token })).data.error).toBe("address_invalid");
    expect((await call("/api/user/add_wallet", { chain: "TRC20", address: "0x5b3A1D8e6F2d1a0e3C2bB4A7dE9f0c1B2a3D4e5F", password: PASSWORD }, { token: u.token })).data.error).toBe("address_invalid");
    expect((await call("/api/user/add_wallet", { chain: "BEP20", address: TRC20[0], password: PASSWORD }, { token: u.token })).data.error).toBe("chain_unsupported");
    const id = await bindWallet(u.token);
    expect((await call("/api/user/add_wallet", { chain: "trc20", address: TRC20[0], password: PASSWORD }, { token: u.token })).data.error).toBe("wallet_duplicate");
    expect((await call("/api/user/wallet_list", {}, { token: u.token })).data).toEqual([expect.objectContaining({ id, chain: "TRC20", address: TRC20[0] })]);
    expect((await call("/api/user/del_wallet", { id }, { token: u.token })).code).toBe(1);
    expect((await call("/api/user/wallet_list", {}, { token: u.token })).data).toEqual([]);
    expect((await call("/api/user/del_wallet", { id }, { token: u.token })).status).toBe(404);
    // Deleted, so it can be bound again.
    expect((await call("/api/user/add_wallet", { chain: "TRC20", address: TRC20[0], password: PASSWORD }, { token: u.token })).code).toBe(1);
  });

  it("bank cards: Luhn-checked, masked in lists, one copy each, only the owner deletes", async () => {
    const u = await newUser();
    expect((await call("/api/user/add_bank", { name: "Ann Lee", bank: "Demo Bank", card_number: "6222021234567890", password: PASSWORD }, { token: u.token })).data.error).toBe("card_invalid");
    expect((await call("/api/user/add_bank", { name: "Ann Lee", bank: "Demo Bank", password: PASSWORD }, { token: u.token })).msg).toBe("Please enter complete information");
    const r = await call("/api/user/add_bank", { name: "Ann Lee", bank: "Demo Bank", card_number: "6222 0212 3456 7894", password: PASSWORD }, { token: u.token });
    expect(r.code).toBe(1);
    expect((await call("/api/user/add_bank", { name: "Ann", bank: "X", card_number: CARD, password: PASSWORD }, { token: u.token })).data.error).toBe("card_duplicate");
    const list = await call("/api/user/bank_list", {}, { token: u.token });
    expect(list.data[0]).toMatchObject({ name: "Ann Lee", bank: "Demo Bank", card_number: "**** **** **** 7894" });
    const other = await newUser();
    expect((await call("/api/user/del_bank", { id: r.data.id }, { token: other.token })).status).toBe(404);
  });
});

describe("withdrawals", () => {
  it("locks at request, shows fee and arrival, and pays out exactly", async () => {
    const u = await fundedUser("1000");
    const wallet_id = await bindWallet(u.token);
    const info = await call("/api/user/withdraw_info", {}, { token: u.token });
    expect(info.data).toMatchObject({ available: "1000.00", paused_until: null, rules: { trc20: { fee_fixed: "1.00", min_amount: "10.00", enabled: true } } });
    const w = await call("/api/user/withdraw", { amount: "100", wallet_id, password: PASSWORD }, { token: u.token, headers: { "idempotency-key": rkey() } });
    expect(w.code).toBe(1);
    expect(w.data).toMatchObject({ amount: "100.00", fee: "1.00", actual_amount: "99.00", status: "review" });
    expect(await balance(u.token)).toEqual({ available: 900 * USDT, locked: 100 * USDT });
    const op = u.op;
    expect((await call(`/api/admin/withdrawals/${w.data.id}/pay`, {}, { token: op })).data.error).toBe("incomplete");
    expect((await call(`/api/admin/withdrawals/${w.data.id}/pay`, { tx_ref: "0xPAID" }, { token: op })).code).toBe(1);
    expect(await balance(u.token)).toEqual({ available: 900 * USDT, locked: 0 });
    const list = await call("/api/user/withdraw_list", {}, { token: u.token });
    expect(list.data.items[0]).toMatchObject({ status: "paid", tx_ref: "0xPAID", actual_amount: "99.00" });
    expect((await call("/api/user/withdraw_cancel", { id: w.data.id }, { token: u.token })).status).toBe(409);
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("bank withdrawals use the bank rule (0.5%) and the masked card", async () => {
    const u = await fundedUser("500");
    const card = await call("/api/user/add_bank", { name: "Ann Lee", bank: "Demo Bank", card_number: CARD, password: PASSWORD }, { token: u.token });
    await openBindings(u.token);
    const w = await call("/api/user/withdraw", { amount: "200", bank_id: card.data.id, password: PASSWORD }, { token: u.token });
    expect(w.data).toMatchObject({ fee: "1.00", actual_amount: "199.00", channel: "bank" });
    expect(w.data.destination).toContain("**** **** **** 7894");
  });

  it("cancel and reject return the whole amount; the reason is shown", async () => {
    const u = await fundedUser("300");
    const wallet_id = await bindWallet(u.token);
    const a = await call("/api/user/withdraw", { amount: "100", wallet_id, password: PASSWORD }, { token: u.token });
    const b = await call("/api/user/withdraw", { amount: "50", wallet_id, password: PASSWORD }, { token: u.token });
    expect(await balance(u.token)).toEqual({ available: 150 * USDT, locked: 150 * USDT });
    expect((await call("/api/user/withdraw_cancel", { id: a.data.id }, { token: u.token })).code).toBe(1);
    expect((await call(`/api/admin/withdrawals/${b.data.id}/reject`, { reason: "Address flagged" }, { token: u.op })).code).toBe(1);
    expect(await balance(u.token)).toEqual({ available: 300 * USDT, locked: 0 });
    const items = (await call("/api/user/withdraw_list", {}, { token: u.token })).data.items;
    expect(items.map((i: { status: string }) => i.status)).toEqual(["rejected", "cancelled"]);
    expect(items[0].reason).toBe("Address flagged");
    expect((await call(`/api/admin/withdrawals/${a.data.id}/pay`, { tx_ref: "x" }, { token: u.op })).status).toBe(409);
  });

  it("only the owner can cancel", async () => {
    const u = await fundedUser("100");
    const w = await call("/api/user/withdraw", { amount: "20", wallet_id: await bindWallet(u.token), password: PASSWORD }, { token: u.token });
    const other = await newUser();
    expect((await call("/api/user/withdraw_cancel", { id: w.data.id }, { token: other.token })).status).toBe(404);
  });

  it("refuses a foreign or missing target, below-minimum, and more than available", async () => {
    const u = await fundedUser("100");
    const other = await newUser();
    const foreign = await bindWallet(other.token, TRC20[1]);
    expect((await call("/api/user/withdraw", { amount: "20", wallet_id: foreign, password: PASSWORD }, { token: u.token })).data.error).toBe("target_unknown");
    expect((await call("/api/user/withdraw", { amount: "20", password: PASSWORD }, { token: u.token })).data.error).toBe("target_unknown");
    const mine = await bindWallet(u.token);
    expect((await call("/api/user/withdraw", { amount: "9", wallet_id: mine, password: PASSWORD }, { token: u.token })).msg).toBe("The minimum amount is 10.00 USDT.");
    expect((await call("/api/user/withdraw", { amount: "100.01", wallet_id: mine, password: PASSWORD }, { token: u.token })).data.error).toBe("insufficient_funds");
    expect(await balance(u.token)).toEqual({ available: 100 * USDT, locked: 0 });
  });

  it("50 concurrent withdrawals that together exceed the balance never overdraw it", async () => {
    // The ledger's race, straight at the domain: through the API the password throttle lets
    // only 5 requests of one account hash at once (tests/api/money/safety.test.ts).
    const u = await fundedUser("1000");
    const wallet_id = await bindWallet(u.token);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => requestWithdrawal(db, { user_id: u.id, amount_micro: 30 * USDT, wallet_id, bank_id: null, request_key: rkey(`c${i}`), card_keys: null }, Date.now())),
    );
    expect(results.filter((r) => r.status === "ok")).toHaveLength(33);
    expect(results.filter((r) => r.status !== "ok").every((r) => r.status === "insufficient_funds")).toBe(true);
    expect(await balance(u.token)).toEqual({ available: 10 * USDT, locked: 990 * USDT });
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("a repeated key never doubles the lock, even when sent 5 times at once", async () => {
    const u = await fundedUser("500");
    const wallet_id = await bindWallet(u.token);
    const key = rkey("same");
    const results = await Promise.all(Array.from({ length: 5 }, () => call("/api/user/withdraw", { amount: "60", wallet_id, password: PASSWORD }, { token: u.token, headers: { "idempotency-key": key } })));
    expect(results.every((r) => r.code === 1)).toBe(true);
    expect(new Set(results.map((r) => r.data.id)).size).toBe(1);
    expect(await balance(u.token)).toEqual({ available: 440 * USDT, locked: 60 * USDT });
    const conflict = await call("/api/user/withdraw", { amount: "61", wallet_id, password: PASSWORD }, { token: u.token, headers: { "idempotency-key": key } });
    expect(conflict.data.error).toBe("idempotency_conflict");
    expect((await call("/api/user/withdraw", { amount: "60", wallet_id, password: PASSWORD }, { token: u.token, headers: { "idempotency-key": "no spaces allowed" } })).status).toBe(400);
  });

  it("pauses for 24 hours after a password change, and says until when", async () => {
    const u = await fundedUser("100");
    const wallet_id = await bindWallet(u.token);
    expect((await call("/api/user/reset_login_pwd", { old_password: u.password, new_password: "changed123" }, { token: u.token })).code).toBe(1);
    const info = await call("/api/user/withdraw_info", {}, { token: u.token });
    expect(info.data.paused_until).toBeGreaterThan(Date.now() + 23 * 3600_000);
    const r = await call("/api/user/withdraw", { amount: "20", wallet_id, password: "changed123" }, { token: u.token });
    expect(r.data.error).toBe("withdraw_paused");
    // A date and time in the user's language (UTC, labelled), never an ISO string.
    expect(r.msg).toMatch(/paused until [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d\s[AP]M UTC because/);
    expect(r.data.until).toBe(info.data.paused_until);
    const ja = await call("/api/user/withdraw", { amount: "20", wallet_id, password: "changed123", lang: "jpn" }, { token: u.token });
    expect(ja.msg).toMatch(/\d{4}\/\d{1,2}\/\d{1,2} \d{1,2}:\d\d UTC まで/);
  });
});

describe("adjustments need two different operators", () => {
  it("propose moves nothing; the same operator cannot approve; another can; a debit cannot overdraw", async () => {
    const { newUser: mk } = await import("../helpers");
    const u = await mk();
    const op1 = await operatorToken();
    const { createOperator } = await import("../../../worker/domain/identity/operators");
    await createOperator(db, { account: "second_op", password: "Second-op-12345" }, Date.now()).catch(() => null);
    const op2 = await operatorToken("second_op", "Second-op-12345");
    const p = await call("/api/admin/adjustments/new", { user_id: u.id, direction: "credit", amount: "12.5", reason: "Goodwill for outage #12" }, { token: op1 });
    expect(p.code).toBe(1);
    expect(await balance(u.token)).toEqual({ available: 0, locked: 0 });
    const self = await call(`/api/admin/adjustments/${p.data.id}/approve`, {}, { token: op1 });
    expect(self.data.error).toBe("four_eyes");
    expect((await call(`/api/admin/adjustments/${p.data.id}/approve`, {}, { token: op2 })).code).toBe(1);
    expect(await balance(u.token)).toEqual({ available: 12_500_000, locked: 0 });
    expect((await call(`/api/admin/adjustments/${p.data.id}/approve`, {}, { token: op2 })).status).toBe(409);
    const statement = await call("/api/user/records", {}, { token: u.token });
    expect(statement.data.items[0]).toMatchObject({ code: "adjustment_credit", amount: "12.50" });
    const d = await call("/api/admin/adjustments/new", { user_id: u.id, direction: "debit", amount: "50", reason: "test" }, { token: op1 });
    expect((await call(`/api/admin/adjustments/${d.data.id}/approve`, {}, { token: op2 })).data.error).toBe("insufficient_funds");
    expect(await balance(u.token)).toEqual({ available: 12_500_000, locked: 0 });
  });

  it("the list pages, filters by user, and names the user and both operators", async () => {
    const { newUser: mk } = await import("../helpers");
    const [u, other] = [await mk(), await mk()];
    const op = await operatorToken();
    for (let i = 0; i < 3; i++) expect((await call("/api/admin/adjustments/new", { user_id: u.id, direction: "credit", amount: `${i + 1}`, reason: `r${i}` }, { token: op })).code).toBe(1);
    expect((await call("/api/admin/adjustments/new", { user_id: other.id, direction: "credit", amount: "9", reason: "other" }, { token: op })).code).toBe(1);
    const page1 = await call("/api/admin/adjustments", { status: "pending", user_id: u.id, page_no: 1, row: 2 }, { token: op });
    expect(page1.data.total).toBe(3);
    expect(page1.data.items.map((a: { amount: string }) => a.amount)).toEqual(["3.00", "2.00"]); // newest first
    expect(page1.data.items[0]).toMatchObject({ user_id: u.id, account: u.account, requested_by_account: "operator" });
    const page2 = await call("/api/admin/adjustments", { status: "pending", user_id: u.id, page_no: 2, row: 2 }, { token: op });
    expect(page2.data.items.map((a: { amount: string }) => a.amount)).toEqual(["1.00"]);
    const all = await call("/api/admin/adjustments", { status: "pending", row: 100 }, { token: op });
    expect(all.data.total).toBeGreaterThanOrEqual(4);
    expect(all.data.items.some((a: { user_id: number }) => a.user_id === other.id)).toBe(true);
    // The console pages: the queue names the user, the user's page lists only theirs.
    const { operatorCookieFor } = await import("./cookies");
    const cookie = await operatorCookieFor(op);
    const queue = await (await page("/admin/adjustments?status=pending", { headers: { cookie } })).text();
    expect(queue).toContain(u.account);
    expect(queue).toContain('data-testid="adjustments-table"');
    const mine = await (await page(`/admin/users/${u.id}`, { headers: { cookie } })).text();
    expect(mine.match(/data-testid="user-pending"/g)?.length).toBe(1);
    expect(mine).toContain("r2");
    expect(mine).not.toContain(">other<");
  });
});

describe("operator ledger views", () => {
  it("ledger check is OK and user ledgers show balances and lines", async () => {
    const u = await fundedUser("75");
    const check = await call("/api/admin/ledger/check", undefined, { token: u.op, method: "GET" });
    expect(check.data).toMatchObject({ ok: true, balance_sum: "0.00" });
    const ledger = await call(`/api/admin/users/${u.id}/ledger`, undefined, { token: u.op, method: "GET" });
    expect(ledger.data.balances.available).toBe("75.00");
    expect(ledger.data.items).toHaveLength(1);
  });
});

describe("paying a bank withdrawal", () => {
  it("operators see the full card number to pay; the user sees it masked", async () => {
    const u = await fundedUser("300");
    const card = await call("/api/user/add_bank", { name: "Ann Lee", bank: "Demo Bank", card_number: CARD, password: PASSWORD }, { token: u.token });
    await openBindings(u.token);
    const w = await call("/api/user/withdraw", { amount: "100", bank_id: card.data.id, password: PASSWORD }, { token: u.token });
    expect(JSON.stringify(w.data)).not.toContain(CARD);
    const queue = await call("/api/admin/withdrawals?status=review&row=100", undefined, { token: u.op, method: "GET" });
    const item = queue.data.items.find((i: { id: number }) => i.id === w.data.id);
    expect(item.payout_details).toContain(CARD);
    expect(item.destination).not.toContain(CARD);
  });
});
