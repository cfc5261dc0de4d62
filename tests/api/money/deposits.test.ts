/**
 * Deposits: each user's own address (derived from the channel's xpub at index = user id),
 * the verified credit, and four eyes at or above the threshold, enforced in the end by the
 * database's CHECKs.
 */
import { pbkdf2 } from "@noble/hashes/pbkdf2.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { HDKey } from "@scure/bip32";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { addressOfPublicKey } from "../../../worker/domain/deposits/addresses";
import { createOperator } from "../../../worker/domain/identity/operators";
import { checkLedger } from "../../../worker/domain/ledger/check";
import { userCookie } from "../../../worker/session-cookie";
import { call, db, newUser, page, seed } from "../helpers";
import { operatorCookieFor } from "./cookies";
import { approve, balance, operatorToken, recharge, USDT } from "./helpers";

/** TEST-ONLY public mnemonic: the demo channels' xpubs are its account keys. */
const MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const root = HDKey.fromMasterSeed(pbkdf2(sha512, new TextEncoder().encode(MNEMONIC), new TextEncoder().encode("mnemonic"), { c: 2048, dkLen: 64 }));
/** What a wallet holding the mnemonic shows as account N (private derivation, independent of the app). */
const walletAddress = (chain: "TRC20" | "ERC20", n: number) =>
  chain === "TRC20" ? addressOfPublicKey("tron", root.derive(`m/44'/195'/0'/0/${n}`).publicKey!) : addressOfPublicKey("ethereum", root.derive(`m/44'/60'/0'/0/${n}`).publicKey!);

type Way = { id: number; chain: "TRC20" | "ERC20"; address: string | null; address_hint?: string };
const ways = async (token?: string) => (await call<Way[]>("/api/index/recharge_way", {}, { token })).data;

let n = 0;
/** Operators need at least 12 characters (OPERATOR_PASSWORD_MIN). */
const OPERATOR_PASSWORD = "DepOperator12345";
async function newOperatorToken() {
  const account = `dep_op_${Date.now().toString(36)}${++n}`.slice(0, 20);
  const r = await createOperator(db, { account, password: OPERATOR_PASSWORD }, Date.now());
  if (r.status !== "ok") throw new Error(`operator: ${r.status}`);
  return operatorToken(account, OPERATOR_PASSWORD);
}

const depositRow = async (id: number) =>
  (await db.all<{ status: string; amount_micro: number; credited_micro: number | null; approved_by: number | null; confirmed_by: number | null; four_eyes_micro: number | null; tx_ref: string; address: string }>(sql`SELECT * FROM deposits WHERE id = ${id}`))[0];

/** The database's own message when a statement is refused ("" when it ran). */
const refusal = (q: Promise<unknown>) =>
  q.then(
    () => "",
    (e: { message?: string; cause?: { message?: string } }) => `${e.message} ${e.cause?.message ?? ""}`,
  );

const creditsOf = async (id: number) => (await db.all<{ n: number }>(sql`SELECT count(*) AS n FROM ledger_transfers WHERE ref_type = 'deposit' AND ref_id = ${String(id)}`))[0].n;

beforeAll(() => seed());

describe("per-user deposit addresses", () => {
  it("two users get different addresses, each the wallet's account at their user id", async () => {
    const a = await newUser();
    const b = await newUser();
    const [wa, wb] = [await ways(a.token), await ways(b.token)];
    expect(wa.map((w) => w.chain)).toEqual(["TRC20", "ERC20"]);
    for (const [u, list] of [[a, wa], [b, wb]] as const) {
      for (const w of list) expect(w.address, `${w.chain} of user ${u.id}`).toBe(walletAddress(w.chain, u.id));
    }
    expect(wa[0].address).not.toBe(wb[0].address);
    expect(wa[1].address).not.toBe(wb[1].address);
    expect(wa[1].address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(wa[0].address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  });

  it("the same user always gets the same address, recorded once", async () => {
    const u = await newUser();
    const first = await ways(u.token);
    const [again, third] = await Promise.all([ways(u.token), ways(u.token)]);
    expect(again).toEqual(first);
    expect(third).toEqual(first);
    const rows = await db.all<{ n: number }>(sql`SELECT count(*) AS n FROM deposit_addresses WHERE user_id = ${u.id}`);
    expect(rows[0].n).toBe(2);
  });

  it("without a session there is no address, only a hint to sign in", async () => {
    const anonymous = await ways();
    expect(anonymous.length).toBe(2);
    for (const w of anonymous) {
      expect(w.address).toBeNull();
      expect(w.address_hint).toBe("Sign in to see your own deposit address.");
    }
    expect(JSON.stringify(anonymous)).not.toContain("xpub");
  });

  it("a crypto deposit records the user's own address as where it was sent", async () => {
    const u = await newUser();
    const [trc20] = await ways(u.token);
    const dep = await recharge(u.token, "25");
    expect(dep.code).toBe(1);
    expect(dep.data.deposit.address).toBe(trc20.address);
    expect(dep.data.deposit.destination).toBe(`USDT · TRC20 · ${trc20.address}`);
    expect((await depositRow(dep.data.id)).address).toBe(walletAddress("TRC20", u.id));
    // The console shows whose address it is.
    const op = await operatorToken();
    const queue = await call("/api/admin/deposits", { status: "review", row: 100 }, { token: op });
    const item = queue.data.items.find((d: { id: number }) => d.id === dep.data.id);
    expect(item.address_owner).toEqual({ user_id: u.id, account: u.account, index: u.id });
  });

  it("operators set xpubs that parse as public keys, for chains with an address rule", async () => {
    const op = await operatorToken();
    const cfg = await call("/api/admin/money_config", {}, { token: op });
    const trc20 = cfg.data.channels.find((c: { chain: string }) => c.chain === "TRC20");
    const body = { currency: "USDT", chain: "TRC20", min_amount: "10", enabled: "1", sort: "0", reason: "rotate key" };
    const save = (xpub: string, chain = "TRC20") => call(`/api/admin/deposit_channels/${trc20.id}`, { ...body, chain, xpub }, { token: op });
    expect((await save("xpub-garbage")).data.error).toBe("xpub_invalid");
    expect((await save(root.derive("m/44'/195'/0'/0").privateExtendedKey)).data.error).toBe("xpub_private");
    expect((await save(trc20.xpub, "BEP20")).data.error).toBe("xpub_chain_unsupported");
    // Nothing changed by the refusals; saving the same key again is audited.
    expect((await save(trc20.xpub)).code).toBe(1);
    const after = await call("/api/admin/money_config", {}, { token: op });
    expect(after.data.channels.find((c: { id: number }) => c.id === trc20.id).xpub).toBe(trc20.xpub);
    const audit = await db.all<{ data_json: string }>(sql`SELECT data_json FROM audit_log WHERE action = 'config.deposit_channel_update' ORDER BY id DESC LIMIT 1`);
    expect(JSON.parse(audit[0].data_json).after.xpub).toBe(trc20.xpub);
  });

  it("new platform bank details close bank recharges until a different operator opens them", async () => {
    const op = await operatorToken();
    const op2 = await operatorToken("auditor", "auditor12345");
    const ba = async () => (await call("/api/index/getBA", {})).data;
    const original = await ba();
    expect(original.enabled).toBe(true);
    const body = { bank: original.bank, holder: original.holder, account: original.account, branch: original.branch, min_amount: "100", enabled: "1", reason: "new account" };
    const theirs = { ...body, account: "9999 0000 1111 2222" };
    expect((await call("/api/admin/bank_account", theirs, { token: op })).data).toEqual({ enabled: false });
    expect((await ba()).enabled).toBeFalsy();
    expect((await call("/api/admin/bank_account", theirs, { token: op })).data.error).toBe("bank_open_four_eyes");
    expect((await call("/api/admin/bank_account", theirs, { token: op2 })).data).toEqual({ enabled: true });
    expect((await ba()).account).toBe("9999 0000 1111 2222");
    // A change of the minimum alone keeps it open; the original details go back the same two-person way.
    expect((await call("/api/admin/bank_account", { ...theirs, min_amount: "120" }, { token: op2 })).data).toEqual({ enabled: true });
    expect((await call("/api/admin/bank_account", body, { token: op2 })).data).toEqual({ enabled: false });
    expect((await call("/api/admin/bank_account", body, { token: op })).data).toEqual({ enabled: true });
    expect((await ba()).account).toBe(original.account);
  });

  it("a new xpub closes the channel until a different operator opens it", async () => {
    const op = await operatorToken();
    const op2 = await operatorToken("auditor", "auditor12345");
    const channel = async () => (await call("/api/admin/money_config", {}, { token: op })).data.channels.find((c: { chain: string }) => c.chain === "TRC20");
    const trc20 = await channel();
    const body = { currency: "USDT", chain: "TRC20", min_amount: "10", enabled: "1", sort: "0", reason: "rotate key" };
    const other = root.derive("m/44'/195'/1'/0").publicExtendedKey;
    // One operator points the channel at another wallet: it closes, and they cannot reopen it.
    const set = await call(`/api/admin/deposit_channels/${trc20.id}`, { ...body, xpub: other }, { token: op });
    expect(set.data).toEqual({ enabled: false });
    expect((await channel()).enabled).toBe(false);
    const u = await newUser();
    expect((await call("/api/index/recharge_way", {}, { token: u.token })).data.find((w: { chain: string }) => w.chain === "TRC20")).toBeUndefined();
    const again = await call(`/api/admin/deposit_channels/${trc20.id}`, { ...body, xpub: other, reason: "open it" }, { token: op });
    expect(again.data.error).toBe("channel_open_four_eyes");
    // A second operator checks the xpub and opens it; then the original key is put back the same way.
    expect((await call(`/api/admin/deposit_channels/${trc20.id}`, { ...body, xpub: other, reason: "checked" }, { token: op2 })).data).toEqual({ enabled: true });
    expect((await call(`/api/admin/deposit_channels/${trc20.id}`, { ...body, xpub: trc20.xpub, reason: "back" }, { token: op2 })).data).toEqual({ enabled: false });
    expect((await call(`/api/admin/deposit_channels/${trc20.id}`, { ...body, xpub: trc20.xpub, reason: "checked" }, { token: op })).data).toEqual({ enabled: true });
    // The database holds the rule too: the operator who set the key cannot be the one who opened it.
    const refused = await db.run(sql`UPDATE deposit_channels SET opened_by = terms_by WHERE id = ${trc20.id}`).then(() => null, (e: Error) => e);
    expect(String(refused?.cause ?? refused)).toMatch(/deposit_channels_four_eyes/);
  });
});

describe("verified credit", () => {
  it("a small deposit credits the verified amount in one approval; the audit keeps claim and credit", async () => {
    const u = await newUser();
    const dep = await recharge(u.token, "300");
    const op = await newOperatorToken();
    const r = await approve(op, dep.data.id, "290.50", "  0xabc-verified  ");
    expect(r.code).toBe(1);
    expect(r.data).toMatchObject({ status: "approved", amount: "300.00", credited: "290.50", tx_ref: "0xabc-verified" });
    expect(await balance(u.token)).toEqual({ available: 290_500_000, locked: 0 });
    const row = await depositRow(dep.data.id);
    expect(row).toMatchObject({ status: "approved", credited_micro: 290_500_000, four_eyes_micro: 10_000 * USDT, confirmed_by: null });
    const audit = await db.all<{ data_json: string }>(sql`SELECT data_json FROM audit_log WHERE action = 'deposit.approve' AND target = ${`deposit:${dep.data.id}`}`);
    expect(JSON.parse(audit[0].data_json)).toMatchObject({ claimed_micro: 300 * USDT, credited_micro: 290_500_000, tx_ref: "0xabc-verified" });
    const list = await call("/api/user/recharge_list", {}, { token: u.token });
    expect(list.data.items[0]).toMatchObject({ id: dep.data.id, status: "approved", amount: "300.00", credited: "290.50" });
  });

  it("tx_ref is required (trimmed, at most 200 characters) and the amount has at most 2 decimals", async () => {
    const u = await newUser();
    const dep = await recharge(u.token, "40");
    const op = await newOperatorToken();
    const url = `/api/admin/deposits/${dep.data.id}/approve`;
    expect((await call(url, { amount: "40" }, { token: op })).data.error).toBe("incomplete");
    expect((await call(url, { amount: "40", tx_ref: "   " }, { token: op })).data.error).toBe("incomplete");
    expect((await call(url, { amount: "40", tx_ref: "x".repeat(201) }, { token: op })).data.error).toBe("invalid_field");
    expect((await call(url, { tx_ref: "ref" }, { token: op })).data.error).toBe("incomplete");
    expect((await call(url, { amount: "40.001", tx_ref: "ref" }, { token: op })).data.error).toBe("amount_decimals");
    expect((await call(url, { amount: "-1", tx_ref: "ref" }, { token: op })).data.error).toBe("amount_invalid");
    expect(await balance(u.token)).toEqual({ available: 0, locked: 0 });
    expect((await call(url, { amount: "40", tx_ref: "x".repeat(200) }, { token: op })).code).toBe(1);
  });
});

describe("one operator never creates money alone", () => {
  const waitReasons = async (op: string, id: number) => (await call("/api/admin/deposits", { status: "confirming", row: 100 }, { token: op })).data.items.find((d: { id: number }) => d.id === id)?.wait_reasons;

  it("a credit above the user's claim waits for a second operator (a 10 USDT claim approved at 9,999.99, three times)", async () => {
    const u = await newUser();
    const a = await newOperatorToken();
    const deps = [await recharge(u.token, "10"), await recharge(u.token, "10"), await recharge(u.token, "10")];
    for (const dep of deps) {
      const r = await approve(a, dep.data.id, "9999.99", `0xinflated-${dep.data.id}`);
      expect(r.code).toBe(1);
      expect(r.data.status).toBe("confirming");
      expect(await waitReasons(a, dep.data.id)).toContain("above_claim");
    }
    expect(await balance(u.token)).toEqual({ available: 0, locked: 0 });
    for (const dep of deps) expect(await creditsOf(dep.data.id)).toBe(0);
    // At the claim, one operator suffices.
    const fair = await recharge(u.token, "10");
    expect((await approve(a, fair.data.id, "10", "0xfair")).data.status).toBe("approved");
    // Below the claim (less arrived than claimed) too.
    const less = await recharge(u.token, "10");
    expect((await approve(a, less.data.id, "9.50", "0xless")).data.status).toBe("approved");
    expect(await balance(u.token)).toEqual({ available: 19_500_000, locked: 0 });
  });

  it("past the user's rolling 24 h total of solo credits, a deposit waits for a second operator", async () => {
    const u = await newUser();
    const [a, b] = [await newOperatorToken(), await newOperatorToken()];
    const first = await recharge(u.token, "3000");
    expect((await approve(a, first.data.id, "3000", "0xu1")).data.status).toBe("approved");
    // Another operator does not reset the user's total.
    const second = await recharge(u.token, "3000");
    expect((await approve(b, second.data.id, "3000", "0xu2")).data.status).toBe("confirming");
    expect(await waitReasons(a, second.data.id)).toEqual(["user_daily_total"]);
    expect(await balance(u.token)).toEqual({ available: 3_000 * USDT, locked: 0 });
    // The other operator confirms: credited, and it does not count as a solo credit.
    expect((await approve(a, second.data.id, "3000", "0xu2")).data.status).toBe("approved");
    expect(await balance(u.token)).toEqual({ available: 6_000 * USDT, locked: 0 });
  });

  it("past the operator's rolling 24 h total of solo credits, deposits wait for a second operator", async () => {
    const a = await newOperatorToken();
    const limits = (await call("/api/admin/money_config", {}, { token: a })).data.four_eyes;
    expect(limits).toMatchObject({ operator_24h_micro: 20_000 * USDT, user_24h_micro: 5_000 * USDT });
    // Four users at 4,999 USDT each (each under the threshold and the user total): 19,996 USDT alone.
    for (let i = 0; i < 4; i++) {
      const u = await newUser();
      const dep = await recharge(u.token, "4999");
      const r = await approve(a, dep.data.id, "4999", `0xop-${i}`);
      expect(r.data?.status, r.msg).toBe("approved");
    }
    const last = await newUser();
    const dep = await recharge(last.token, "10");
    expect((await approve(a, dep.data.id, "10", "0xop-last")).data.status).toBe("confirming");
    expect(await waitReasons(a, dep.data.id)).toEqual(["operator_daily_total"]);
    expect(await balance(last.token)).toEqual({ available: 0, locked: 0 });
    // Another operator alone still may.
    const other = await newUser();
    const dep2 = await recharge(other.token, "10");
    expect((await approve(await newOperatorToken(), dep2.data.id, "10", "0xother-op")).data.status).toBe("approved");
  });

  it("two solo approvals racing past the operator's total: one credits, the other waits", async () => {
    const a = await newOperatorToken();
    const users = [await newUser(), await newUser(), await newUser(), await newUser(), await newUser()];
    const deps = [];
    for (const u of users) deps.push(await recharge(u.token, "4500"));
    // 4 × 4,500 = 18,000 alone; the fifth, in parallel with the fourth, would pass 20,000.
    for (const dep of deps.slice(0, 3)) expect((await approve(a, dep.data.id, "4500", `0xr-${dep.data.id}`)).data.status).toBe("approved");
    const raced = await Promise.all(deps.slice(3).map((dep) => approve(a, dep.data.id, "4500", `0xr-${dep.data.id}`)));
    expect(raced.map((r) => r.data.status).sort()).toEqual(["approved", "confirming"]);
    const solo = await db.all<{ total: number }>(sql`SELECT SUM(credited_micro) AS total FROM deposits WHERE id IN (SELECT value FROM json_each(${JSON.stringify(deps.map((d) => d.data.id))})) AND status = 'approved'`);
    expect(solo[0].total).toBe(18_000 * USDT);
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("the database refuses a solo approval above the claim or past a rolling total, whatever the code does", async () => {
    const u = await newUser();
    const a = await newOperatorToken();
    const dep = await recharge(u.token, "10");
    const opId = (await db.all<{ id: number }>(sql`SELECT id FROM operators ORDER BY id DESC LIMIT 1`))[0].id;
    const solo = (id: number, micro: number) =>
      refusal(db.run(sql`UPDATE deposits SET status = 'approved', credited_micro = ${micro}, approved_by = ${opId}, four_eyes_micro = ${10_000 * USDT}, decided_at_ms = ${Date.now()} WHERE id = ${id}`));
    expect(await solo(dep.data.id, 9_999_990_000)).toMatch(/deposits_solo_above_claim/);
    const big = await recharge(u.token, "6000");
    expect(await solo(big.data.id, 6_000 * USDT)).toMatch(/deposits_solo_user_total/);
    expect((await depositRow(big.data.id)).status).toBe("review");
    // The limits themselves are changed by migrations only.
    expect(await refusal(db.run(sql`UPDATE solo_credit_limits SET micro = 1e15`))).toMatch(/set by migrations/);
    expect(await refusal(db.run(sql`DELETE FROM solo_credit_limits`))).toMatch(/set by migrations/);
    expect(a).toBeTruthy();
  });
});

describe("four eyes", () => {
  it("a large deposit needs two operators and credits the verified amount", async () => {
    const u = await newUser();
    const dep = await recharge(u.token, "12000");
    const [a, b] = [await newOperatorToken(), await newOperatorToken()];
    const first = await approve(a, dep.data.id, "11500", "0xlarge");
    expect(first.code).toBe(1);
    expect(first.data.status).toBe("confirming");
    expect(first.msg).toBe("Verification recorded. A second operator must confirm it before anything is credited.");
    expect(await balance(u.token)).toEqual({ available: 0, locked: 0 });
    expect(await creditsOf(dep.data.id)).toBe(0);
    // The user sees the named state.
    expect((await call("/api/user/recharge_list", {}, { token: u.token })).data.items[0].status).toBe("confirming");
    // The same operator again is refused.
    const same = await approve(a, dep.data.id, "11500", "0xlarge");
    expect(same.data.error).toBe("four_eyes_same_operator");
    // A second operator with another amount or reference is refused.
    expect((await approve(b, dep.data.id, "11000", "0xlarge")).data.error).toBe("four_eyes_mismatch");
    expect((await approve(b, dep.data.id, "11500", "0xother")).data.error).toBe("four_eyes_mismatch");
    // The waiting list shows who approved first.
    const waiting = await call("/api/admin/deposits", { status: "confirming", row: 100 }, { token: b });
    const item = waiting.data.items.find((d: { id: number }) => d.id === dep.data.id);
    expect(item).toMatchObject({ credited: "11500.00", tx_ref: "0xlarge" });
    expect(item.approved_by_account).toMatch(/^dep_op_/);
    // The second operator completes it.
    const done = await approve(b, dep.data.id, "11500", "0xlarge");
    expect(done.code).toBe(1);
    expect(done.data.status).toBe("approved");
    expect(await balance(u.token)).toEqual({ available: 11_500 * USDT, locked: 0 });
    expect(await creditsOf(dep.data.id)).toBe(1);
    const row = await depositRow(dep.data.id);
    expect(row.confirmed_by).not.toBeNull();
    expect(row.confirmed_by).not.toBe(row.approved_by);
    const report = await checkLedger(db);
    expect(report.ok).toBe(true);
    expect(report.debits_micro).toBe(report.credits_micro);
    const audit = await db.all<{ action: string; data_json: string }>(sql`SELECT action, data_json FROM audit_log WHERE target = ${`deposit:${dep.data.id}`} ORDER BY id`);
    expect(audit.map((e) => e.action)).toEqual(["deposit.approve_first", "deposit.confirm"]);
    for (const e of audit) expect(JSON.parse(e.data_json)).toMatchObject({ claimed_micro: 12_000 * USDT, credited_micro: 11_500 * USDT });
  });

  it("the database refuses approval of a large deposit without a second, different operator", async () => {
    const u = await newUser();
    const dep = await recharge(u.token, "20000");
    const a = await newOperatorToken();
    expect((await approve(a, dep.data.id, "20000", "0xdirect")).data.status).toBe("confirming");
    const row = await depositRow(dep.data.id);
    expect(await refusal(db.run(sql`UPDATE deposits SET status = 'approved' WHERE id = ${dep.data.id}`))).toMatch(/CHECK constraint failed: deposits_large_needs_two|deposits_solo_/);
    expect(await refusal(db.run(sql`UPDATE deposits SET status = 'approved', confirmed_by = approved_by WHERE id = ${dep.data.id}`))).toMatch(/CHECK constraint failed: deposits_(four_eyes|large_needs_two)/);
    // Straight from review, as one operator: refused as well.
    const dep2 = await recharge(u.token, "15000");
    expect(
      await refusal(db.run(sql`UPDATE deposits SET status = 'approved', credited_micro = ${15_000 * USDT}, approved_by = ${row.approved_by}, four_eyes_micro = ${10_000 * USDT} WHERE id = ${dep2.data.id}`)),
    ).toMatch(/CHECK constraint failed: deposits_large_needs_two|deposits_solo_/);
    expect((await depositRow(dep.data.id)).status).toBe("confirming");
    expect((await depositRow(dep2.data.id)).status).toBe("review");
  });

  it("two different operators confirming at once credit exactly once", async () => {
    const u = await newUser();
    const dep = await recharge(u.token, "10000");
    const [a, b, c] = [await newOperatorToken(), await newOperatorToken(), await newOperatorToken()];
    // Exactly the threshold needs two.
    expect((await approve(a, dep.data.id, "10000", "0xrace")).data.status).toBe("confirming");
    const raced = await Promise.all([approve(b, dep.data.id, "10000", "0xrace"), approve(c, dep.data.id, "10000", "0xrace")]);
    expect(raced.map((r) => r.code).sort()).toEqual([0, 1]);
    expect(raced.find((r) => r.code === 0)!.data.error).toBe("state_conflict");
    expect(await balance(u.token)).toEqual({ available: 10_000 * USDT, locked: 0 });
    expect(await creditsOf(dep.data.id)).toBe(1);
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("a deposit is rejected from review or from confirming, and nothing is credited", async () => {
    const u = await newUser();
    const dep = await recharge(u.token, "50000");
    const [a, b] = [await newOperatorToken(), await newOperatorToken()];
    expect((await approve(a, dep.data.id, "50000", "0xwrong")).data.status).toBe("confirming");
    const rejected = await call(`/api/admin/deposits/${dep.data.id}/reject`, { reason: "Nothing arrived at the address" }, { token: b });
    expect(rejected.code).toBe(1);
    expect(rejected.data.status).toBe("rejected");
    expect((await approve(b, dep.data.id, "50000", "0xwrong")).status).toBe(409);
    expect(await balance(u.token)).toEqual({ available: 0, locked: 0 });
    expect(await creditsOf(dep.data.id)).toBe(0);
  });

  it("operators set the threshold in the money settings, audited", async () => {
    const op = await operatorToken();
    const cfg = async () => (await call("/api/admin/money_config", {}, { token: op })).data.four_eyes;
    expect(await cfg()).toMatchObject({ threshold: "10000.00", threshold_micro: 10_000 * USDT });
    expect((await call("/api/admin/deposit_four_eyes", { threshold: "500" }, { token: op })).data.error).toBe("incomplete");
    expect((await call("/api/admin/deposit_four_eyes", { threshold: "5.001", reason: "x" }, { token: op })).data.error).toBe("amount_decimals");
    expect((await call("/api/admin/deposit_four_eyes", { threshold: "500", reason: "tighter control" }, { token: op })).code).toBe(1);
    expect(await cfg()).toMatchObject({ threshold: "500.00", threshold_micro: 500 * USDT });
    const audit = await db.all<{ data_json: string; reason: string }>(sql`SELECT data_json, reason FROM audit_log WHERE action = 'config.deposit_four_eyes' ORDER BY id DESC LIMIT 1`);
    expect(audit[0].reason).toBe("tighter control");
    expect(JSON.parse(audit[0].data_json)).toEqual({ before_micro: 10_000 * USDT, after_micro: 500 * USDT });
    // Now 600 needs two operators.
    const u = await newUser();
    const dep = await recharge(u.token, "600");
    expect((await approve(op, dep.data.id, "600", "0xsmall-now-large")).data.status).toBe("confirming");
    // One operator can make four eyes stricter, never looser: above 10,000 is refused, nothing saved.
    const looser = await call("/api/admin/deposit_four_eyes", { threshold: "10000.01", reason: "fewer reviews" }, { token: op });
    expect(looser.data.error).toBe("four_eyes_ceiling");
    expect(looser.msg).toContain("10000.00 USDT");
    expect(await cfg()).toMatchObject({ threshold: "500.00", threshold_micro: 500 * USDT });
    expect((await call("/api/admin/deposit_four_eyes", { threshold: "10000", reason: "back to default" }, { token: op })).code).toBe(1);
  });
});

describe("pages", () => {
  it("the recharge page shows the user's own address; the console shows who approved first and whose address it was", async () => {
    const u = await newUser();
    const cookie = (await userCookie.serialize(u.token)).split(";")[0];
    const html = await (await page("/pages/me/sub/stored", { headers: { cookie } })).text();
    expect(html).toContain(walletAddress("TRC20", u.id));
    expect(html).toContain('data-testid="address-own"');
    const dep = await recharge(u.token, "25000");
    const a = await newOperatorToken();
    expect((await approve(a, dep.data.id, "24000", "0xpage")).data.status).toBe("confirming");
    const first = (await call("/api/admin/me", {}, { token: a })).data;
    const queue = await (await page("/admin/deposits", { headers: { cookie: await operatorCookieFor(await operatorToken()) } })).text();
    expect(queue).toContain('data-testid="deposits-waiting"');
    expect(queue).toContain(walletAddress("TRC20", u.id));
    expect(queue).toContain(`deposit address of ${u.account} (user ID ${u.id}, index ${u.id})`);
    expect(queue).toContain(`First approval: ${first.account}`);
    const records = await (await page("/pages/me/sub/recharge-record", { headers: { cookie } })).text();
    expect(records).toContain('data-status="confirming"');
    expect(records).toContain("a second operator is confirming it");
  });
});

