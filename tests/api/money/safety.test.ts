import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createApi } from "../../../worker/api/app";
import { getDb } from "../../../worker/db/client";
import { bank_cards, deposits, login_throttle, users, wallets, withdrawals } from "../../../worker/db/schema";
import { requestWithdrawal } from "../../../worker/domain/withdrawals/withdrawals";
import type { Env } from "../../../worker/env";
import { userCookie } from "../../../worker/session-cookie";
import { call, db, newUser, page, seed, testEnv, type Answer } from "../helpers";
import { balance, bindWallet, CARD, fundedUser, PASSWORD, rkey, TRC20, upload, USDT, openBindings } from "./helpers";

beforeAll(() => seed());

const app = createApi();

/** Calls the API under another deployment's env (production, its own CARD_KEY, ...). */
async function callAs(env: Env, path: string, body: Record<string, unknown>, token: string): Promise<Answer> {
  const res = await app.request(path, { method: "POST", headers: { token, "content-type": "application/json" }, body: JSON.stringify(body) }, env);
  return { status: res.status, ...((await res.json()) as { code: number; msg: string; data: any }), headers: res.headers };
}

const rawRow = async (table: string, id: number) => JSON.stringify(await testEnv.DB.prepare(`SELECT * FROM ${table} WHERE id = ?`).bind(id).first());
const withdrawalCount = async (user_id: number) => (await db.select().from(withdrawals).where(eq(withdrawals.user_id, user_id))).length;

describe("the login password guards money out", () => {
  it("a withdrawal without it, or with a wrong one, is refused and writes nothing", async () => {
    const u = await fundedUser("100");
    const wallet_id = await bindWallet(u.token);
    const missing = await call("/api/user/withdraw", { amount: "20", wallet_id }, { token: u.token });
    expect(missing.data.error).toBe("password_wrong");
    expect(missing.msg).toBe("The login password is incorrect.");
    const wrong = await call("/api/user/withdraw", { amount: "20", wallet_id, password: "wrong1234" }, { token: u.token, headers: { lang: "ja" } });
    expect(wrong.msg).toBe("ログインパスワードが正しくありません。");
    expect(await withdrawalCount(u.id)).toBe(0);
    expect(await balance(u.token)).toEqual({ available: 100 * USDT, locked: 0 });
    expect((await call("/api/user/withdraw", { amount: "20", wallet_id, password: PASSWORD }, { token: u.token })).code).toBe(1);
  });

  it("binding a wallet or a card needs it too", async () => {
    const u = await newUser();
    expect((await call("/api/user/add_wallet", { chain: "TRC20", address: TRC20[0] }, { token: u.token })).data.error).toBe("password_wrong");
    expect((await call("/api/user/add_bank", { name: "Ann Lee", bank: "Demo Bank", card_number: CARD, password: "wrong1234" }, { token: u.token })).data.error).toBe("password_wrong");
    expect(await db.select().from(wallets).where(eq(wallets.user_id, u.id))).toEqual([]);
    expect(await db.select().from(bank_cards).where(eq(bank_cards.user_id, u.id))).toEqual([]);
  });

  it("wrong confirmations count in the sign-in throttle: 5 lock the account, sign-in included", async () => {
    const u = await fundedUser("100");
    const wallet_id = await bindWallet(u.token);
    const guesses = [
      () => call("/api/user/withdraw", { amount: "20", wallet_id, password: "guess0001" }, { token: u.token }),
      () => call("/api/user/add_wallet", { chain: "TRC20", address: TRC20[1], password: "guess0002" }, { token: u.token }),
      () => call("/api/user/add_bank", { name: "A", bank: "B", card_number: CARD, password: "guess0003" }, { token: u.token }),
      () => call("/api/user/withdraw", { amount: "20", wallet_id }, { token: u.token }),
      () => call("/api/user/login", { account: u.account, password: "guess0005" }),
    ];
    for (const guess of guesses) expect(["password_wrong", "login_failed"]).toContain((await guess()).data.error);
    const locked = await call("/api/user/withdraw", { amount: "20", wallet_id, password: PASSWORD }, { token: u.token });
    expect(locked.status).toBe(429);
    expect(locked.data.error).toBe("login_throttled");
    expect((await call("/api/user/login", { account: u.account, password: PASSWORD })).status).toBe(429);
    expect(await withdrawalCount(u.id)).toBe(0);
  });

  it("parallel guesses through a withdrawal take at most 5 attempts; the rest are refused unhashed", async () => {
    const u = await fundedUser("100");
    const wallet_id = await bindWallet(u.token);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call("/api/user/withdraw", { amount: "20", wallet_id, password: `guess${i}xyz` }, { token: u.token })),
    );
    expect(results.filter((r) => r.data.error === "password_wrong").length).toBeLessThanOrEqual(5);
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(7);
    const row = await db.query.login_throttle.findFirst({ where: eq(login_throttle.key, `user:${u.account}`) });
    expect(row?.failures).toBe(5);
  });
});

describe("bank card numbers at rest", () => {
  it("the stored row holds ciphertext, a fingerprint and the last four; users see it masked", async () => {
    const u = await newUser();
    const r = await call("/api/user/add_bank", { name: "Ann Lee", bank: "Demo Bank", card_number: CARD, password: PASSWORD }, { token: u.token });
    expect(r.code).toBe(1);
    const raw = await rawRow("bank_cards", r.data.id);
    expect(raw).not.toContain(CARD);
    expect(raw).not.toContain(CARD.slice(0, 12));
    const row = await db.query.bank_cards.findFirst({ where: eq(bank_cards.id, r.data.id) });
    expect(row?.card_number).toMatch(/^v1\./);
    expect(row?.card_fingerprint).toMatch(/^v1:/);
    expect(row?.card_last4).toBe("7894");
    expect(r.data.card.card_number).toBe("**** **** **** 7894");
    // The same number typed differently is found again by its fingerprint.
    expect((await call("/api/user/add_bank", { name: "A", bank: "B", card_number: "6222-0212-3456-7894", password: PASSWORD }, { token: u.token })).data.error).toBe("card_duplicate");
  });

  it("a bank withdrawal keeps the payout details sealed; only the operators' view opens them", async () => {
    const u = await fundedUser("300");
    const card = await call("/api/user/add_bank", { name: "Ann Lee", bank: "Demo Bank", card_number: CARD, password: PASSWORD }, { token: u.token });
    await openBindings(u.token);
    const w = await call("/api/user/withdraw", { amount: "100", bank_id: card.data.id, password: PASSWORD }, { token: u.token });
    expect(w.code).toBe(1);
    const raw = await rawRow("withdrawals", w.data.id);
    expect(raw).not.toContain(CARD);
    expect(raw).not.toContain(CARD.slice(0, 12));
    expect(JSON.stringify(w.data)).not.toContain(CARD);
    const queue = await call("/api/admin/withdrawals?status=review&row=100", undefined, { token: u.op, method: "GET" });
    const item = queue.data.items.find((i: { id: number }) => i.id === w.data.id);
    expect(item).toMatchObject({ payout_details: `Demo Bank · Ann Lee · ${CARD}`, payout_unreadable: false });
  });

  it("cards bound before encryption still read, withdraw and count as duplicates", async () => {
    const u = await fundedUser("300");
    const [legacy] = await db
      .insert(bank_cards)
      .values({ user_id: u.id, name: "Old Card", bank: "Old Bank", card_number: CARD, card_fingerprint: "legacy:x", card_last4: "7894", created_at_ms: Date.now() })
      .returning();
    expect((await call("/api/user/bank_list", {}, { token: u.token })).data[0]).toMatchObject({ id: legacy.id, card_number: "**** **** **** 7894" });
    expect((await call("/api/user/add_bank", { name: "A", bank: "B", card_number: CARD, password: PASSWORD }, { token: u.token })).data.error).toBe("card_duplicate");
    const w = await call("/api/user/withdraw", { amount: "50", bank_id: legacy.id, password: PASSWORD }, { token: u.token });
    expect(w.data.destination).toBe("Old Bank · Old Card · **** **** **** 7894");
    expect(await rawRow("withdrawals", w.data.id)).not.toContain(CARD);
    const queue = await call("/api/admin/withdrawals?status=review&row=100", undefined, { token: u.op, method: "GET" });
    expect(queue.data.items.find((i: { id: number }) => i.id === w.data.id).payout_details).toBe(`Old Bank · Old Card · ${CARD}`);
  });

  it("production without CARD_KEY refuses to bind a card rather than store it in the clear", async () => {
    const u = await newUser();
    const production = { ...testEnv, APP_ENV: "production", PRICE_FEED: "binance", PRICE_FEED_URL: "wss://stream.binance.com:9443" } as Env;
    const r = await callAs(production, "/api/user/add_bank", { name: "Ann Lee", bank: "Demo Bank", card_number: CARD, password: PASSWORD }, u.token);
    expect(r.status).toBe(503);
    expect(r.data.error).toBe("card_unavailable");
    expect(await db.select().from(bank_cards).where(eq(bank_cards.user_id, u.id))).toEqual([]);
    // With its own key, production seals under that key: the development key cannot open it.
    const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
    const ok = await callAs({ ...production, CARD_KEY: key }, "/api/user/add_bank", { name: "Ann Lee", bank: "Demo Bank", card_number: CARD, password: PASSWORD }, u.token);
    expect(ok.code).toBe(1);
    await openBindings(u.token);
    expect(await rawRow("bank_cards", ok.data.id)).not.toContain(CARD);
    const w = await callAs({ ...production, CARD_KEY: key }, "/api/user/withdraw", { amount: "60", bank_id: ok.data.id, password: PASSWORD }, u.token);
    expect(w.data.error).toBe("insufficient_funds"); // the card opened with its key; this user has no money
    const devKeyTry = await call("/api/user/withdraw", { amount: "60", bank_id: ok.data.id, password: PASSWORD }, { token: u.token });
    expect(devKeyTry.data.error).toBe("card_unavailable");
  });
});

describe("the pause after a password change", () => {
  it("is checked inside the withdrawal's own batch: a change landing after the reads still stops it", async () => {
    const u = await fundedUser("100");
    const wallet_id = await bindWallet(u.token);
    const until = Date.now() + 24 * 3600_000;
    // A D1 that lets a password change land between the withdrawal's reads and its batch.
    const racing = new Proxy(testEnv.DB, {
      get(target, prop) {
        if (prop === "batch")
          return async (statements: D1PreparedStatement[]) => {
            await target.prepare("UPDATE users SET withdraw_paused_until_ms = ? WHERE id = ?").bind(until, u.id).run();
            return target.batch(statements);
          };
        const v = Reflect.get(target, prop);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    const r = await requestWithdrawal(getDb(racing), { user_id: u.id, amount_micro: 20 * USDT, wallet_id, bank_id: null, request_key: rkey("pause"), card_keys: null }, Date.now());
    expect(r).toEqual({ status: "paused", until_ms: until });
    expect(await withdrawalCount(u.id)).toBe(0);
    expect(await balance(u.token)).toEqual({ available: 100 * USDT, locked: 0 });
    // Once the pause is over the same request goes through.
    await db.update(users).set({ withdraw_paused_until_ms: Date.now() - 1 }).where(eq(users.id, u.id));
    const later = await requestWithdrawal(db, { user_id: u.id, amount_micro: 20 * USDT, wallet_id, bank_id: null, request_key: rkey("pause"), card_keys: null }, Date.now());
    expect(later.status).toBe("ok");
  });
});

describe("a demo deployment moves no money", () => {
  const demo = { ...testEnv, APP_ENV: "demo" } as Env;
  delete (demo as Partial<Env>).PRICE_FEED;

  it("withdrawals and recharges are closed, with a clear message, and nothing is written", async () => {
    const u = await fundedUser("100");
    const wallet_id = await bindWallet(u.token);
    const w = await callAs(demo, "/api/user/withdraw", { amount: "20", wallet_id, password: PASSWORD }, u.token);
    expect(w.code).toBe(0);
    expect(w.data.error).toBe("demo_money_closed");
    expect(w.msg).toBe("This is a demo: deposits and withdrawals are closed. Balances here are demo money.");
    const img = await upload(u.token);
    const before = (await db.select().from(deposits).where(eq(deposits.user_id, u.id))).length;
    const r = await callAs(demo, "/api/user/recharge", { channel_id: 1, amount: "20", tx_hash: `0x${rkey("demo").replace(/[^0-9a-z]/gi, "")}`, image: img.data.url }, u.token);
    expect(r.data.error).toBe("demo_money_closed");
    expect((await db.select().from(deposits).where(eq(deposits.user_id, u.id))).length).toBe(before);
    expect(await withdrawalCount(u.id)).toBe(0);
    expect(await balance(u.token)).toEqual({ available: 100 * USDT, locked: 0 });
    // The same requests are open where the deployment is not a demo.
    expect((await call("/api/user/withdraw", { amount: "20", wallet_id, password: PASSWORD }, { token: u.token })).code).toBe(1);
  });
});

describe("the pages ask for the password", () => {
  it("withdraw, bind a wallet and bind a card each have a current-password field, labelled in the user's language", async () => {
    const u = await newUser();
    const session = (await userCookie.serialize(u.token)).split(";")[0];
    for (const [lng, label] of [["en", "Login password"], ["ja", "ログインパスワード"]] as const) {
      const cookie = `${session}; lng=${btoa(JSON.stringify(lng))}`;
      for (const path of ["/pages/me/sub/draw-money", "/pages/me/sub/add-wallet", "/pages/me/sub/add-kabaw"]) {
        const res = await page(path, { headers: { cookie } });
        expect(res.status, path).toBe(200);
        const html = await res.text();
        const input = /<input[^>]*name="password"[^>]*>/.exec(html)?.[0] ?? "";
        expect(input, `${lng} ${path}`).toMatch(/type="password"/);
        expect(input, `${lng} ${path}`).toMatch(/autocomplete="current-password"/i);
        expect(html, `${lng} ${path}`).toContain(`>${label}</label>`);
      }
    }
  });
});
