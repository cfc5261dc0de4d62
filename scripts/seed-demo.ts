/**
 * Demo data for local runs, written through the same domain code the API uses. Safe to run
 * again: everything it creates is looked up first. Never part of a deploy.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../worker/db/client";
import { operators, slides, users } from "../worker/db/schema";
import { createSlide, seedContacts } from "../worker/domain/content/site";
import { createOperator } from "../worker/domain/identity/operators";
import { enrolOperatorKey, operatorTwoFactorOn } from "../worker/domain/identity/operator-two-factor";
import { DEMO_OPERATORS } from "./demo-operators";
import { ensurePlatformInviteCode, registerUser } from "../worker/domain/identity/users";
import { setBankAccount, getBankAccount } from "../worker/domain/deposits/bank-account";
import { createChannel } from "../worker/domain/deposits/channels";
import { approveDeposit } from "../worker/domain/deposits/decide";
import { listChannels } from "../worker/domain/deposits/channels";
import { submitDeposit } from "../worker/domain/deposits/deposits";
import { storeUpload } from "../worker/domain/uploads/store";
import { getRules, setRule } from "../worker/domain/withdrawals/withdrawals";
import { SEEDED_WITHDRAWAL_RULES } from "../worker/domain/money/settings";
import { deposit_channels, deposits, products } from "../worker/db/schema";
import { saveProduct } from "../worker/domain/trades/products";
import { listMinerPlans, listPoolProducts, saveMinerPlan, savePoolProduct } from "../worker/domain/earn/products";
import { MICRO_PER_USDT as USDT } from "../worker/domain/money/units";
import { savePromotion } from "../worker/domain/promotions/promotions";
import type { PromotionTexts } from "../worker/domain/promotions/texts";
import { promotions } from "../worker/db/schema";

export const DEMO = {
  invite_code: "WELCOME",
  user: { account: "demo", password: "demo12345" },
  /** Operators sign in with a code too (decision 117): their keys are public, like their passwords. */
  operator: DEMO_OPERATORS.operator,
  /** A second operator, so the demo can show four eyes (large deposits, adjustments). */
  operator2: DEMO_OPERATORS.auditor,
} as const;

/** A small PNG standing in for the demo deposit's transfer screenshot. */
const DEMO_SCREENSHOT_PNG = "iVBORw0KGgoAAAANSUhEUgAAABgAAAAQCAIAAACDRijCAAAAUklEQVR4nO3MIQJAUBQAwX+wPeo2QRAEQRAEQRAEQRAEQRAEQRA4hPrmAJPwxQdvvPDEA3fccMUFZ5xwxAF77LDFBmussMQCc8xSRBFFFNG/6AMk732fPYXb4wAAAABJRU5ErkJggg==";


export async function seedDemo(db: Db, bucket: R2Bucket, now_ms = Date.now()): Promise<string[]> {
  const done: string[] = [];
  await ensurePlatformInviteCode(db, DEMO.invite_code, now_ms);

  if (!(await db.query.users.findFirst({ where: eq(users.account, DEMO.user.account) }))) {
    const r = await registerUser(db, { ...DEMO.user, invite_code: DEMO.invite_code, lang: null }, now_ms);
    if (r.status !== "ok") throw new Error(`seed: demo user: ${r.status}`);
    done.push("user demo");
  }
  for (const demo of [DEMO.operator, DEMO.operator2]) {
    let operator = await db.query.operators.findFirst({ where: eq(operators.account, demo.account) });
    if (!operator) {
      const r = await createOperator(db, demo, now_ms);
      if (r.status !== "ok") throw new Error(`seed: operator ${demo.account}: ${r.status}`);
      operator = r.operator;
      done.push(`operator ${demo.account}`);
    }
    // Kept as base32, not sealed: the demo keys are published, sealing would hide nothing.
    if (!(await operatorTwoFactorOn(db, operator.id))) {
      await enrolOperatorKey(db, null, operator, demo.totp_key, now_ms);
      done.push(`operator ${demo.account}: authenticator key`);
    }
  }
  await seedContacts(db, { wechat: "proofline_support", mobile: "+1 555 0100", email: "support@proofline.example", hours: "09:00–21:00 UTC" }, now_ms);
  if ((await db.select({ id: slides.id }).from(slides).limit(1)).length === 0) {
    const banners = [
      { title: "Prices you can verify", image_url: "/banners/1.svg", link: "/pages/me/sub/about" },
      { title: "Every balance is a ledger", image_url: "/banners/2.svg", link: "/pages/me/sub/about" },
      { title: "Invite friends", image_url: "/banners/3.svg", link: "/pages/me/index" },
    ];
    for (const [i, b] of banners.entries()) await createSlide(db, null, { ...b, sort: i, enabled: true }, "demo seed", now_ms);
    done.push("banners");
  }
  done.push(...(await seedMoney(db, bucket, now_ms)));
  done.push(...(await seedProducts(db, now_ms)));
  done.push(...(await seedEarn(db, now_ms)));
  done.push(...(await seedPromotions(db, now_ms)));
  return done;
}

/**
 * Extended public keys of the demo channels. TEST-ONLY: they come from the public BIP-39 test
 * mnemonic "abandon abandon … abandon about" (anyone can spend from its addresses), at
 * m/44'/195'/0'/0 (TRON) and m/44'/60'/0'/0 (Ethereum); user N's address is child N.
 */
export const DEMO_XPUBS = {
  TRC20: "xpub6EuK4CZWW5urEHdwAVDdDw327danAtccFcrXYvgf1DHrPXRwErt36xStQ2PNhn4hpwzPbzJ8pJVpewgChRnSs59q5Ay61GCfQZKUe71gbLq",
  ERC20: "xpub6EF8jXqFeFEW5bwMU7RpQtHkzE4KJxcqJtvkCjJumzW8CPpacXkb92ek4WzLQXjL93HycJwTPUAcuNxCqFPKKU5m5Z2Vq4nCyh5CyPeBFFr",
} as const;

/**
 * Deposit channels (USDT on TRC20 and ERC20, each user with their own address), the platform
 * bank account, withdrawal fees and minimums, and 10,000 USDT for `demo` through deposits the
 * operator approves, so the ledger holds a real, balanced history.
 */
async function seedMoney(db: Db, bucket: R2Bucket, now_ms: number): Promise<string[]> {
  const done: string[] = [];
  done.push(...(await seedChannels(db, now_ms)));
  if (!(await getBankAccount(db)).enabled) {
    await setBankAccount(db, null, { enabled: true, bank: "Demo Bank", holder: "Proofline Ltd", account: "6222 0000 1234 5678", branch: "Main branch", min_amount_micro: 100 * USDT }, "demo seed", now_ms);
    done.push("bank account");
  }
  const rules = await getRules(db);
  if (!rules.trc20.enabled) await setRule(db, null, "trc20", SEEDED_WITHDRAWAL_RULES.trc20, "demo seed", now_ms);
  if (!rules.bank.enabled) await setRule(db, null, "bank", SEEDED_WITHDRAWAL_RULES.bank, "demo seed", now_ms);
  done.push(...(await seedOpeningDeposits(db, bucket, now_ms)));
  return done;
}

/** The two demo channels; channels seeded before xpubs existed get theirs. */
async function seedChannels(db: Db, now_ms: number): Promise<string[]> {
  const existing = await listChannels(db, { only_enabled: false });
  if (existing.length === 0) {
    await createChannel(db, null, { currency: "USDT", chain: "TRC20", address: "", xpub: DEMO_XPUBS.TRC20, min_amount_micro: 10 * USDT, enabled: true, sort: 0 }, "demo seed", now_ms);
    await createChannel(db, null, { currency: "USDT", chain: "ERC20", address: "", xpub: DEMO_XPUBS.ERC20, min_amount_micro: 50 * USDT, enabled: true, sort: 1 }, "demo seed", now_ms);
    return ["deposit channels"];
  }
  const missing = existing.filter((c) => c.xpub === "" && (c.chain === "TRC20" || c.chain === "ERC20"));
  for (const c of missing) await db.update(deposit_channels).set({ xpub: DEMO_XPUBS[c.chain as keyof typeof DEMO_XPUBS] }).where(eq(deposit_channels.id, c.id));
  return missing.length > 0 ? ["deposit channel xpubs"] : [];
}

/**
 * 10,000 USDT for `demo` as two deposits of 5,000, each below the four-eyes threshold. The
 * second passes the user's rolling 24 h total of solo credits, so `auditor` confirms it, as a
 * second operator must.
 */
async function seedOpeningDeposits(db: Db, bucket: R2Bucket, now_ms: number): Promise<string[]> {
  if (await db.query.deposits.findFirst({ where: eq(deposits.request_key, "seed:demo-opening-deposit") })) return [];
  const demo = (await db.query.users.findFirst({ where: eq(users.account, DEMO.user.account) }))!;
  const operator = (await db.query.operators.findFirst({ where: eq(operators.account, DEMO.operator.account) }))!;
  const auditor = (await db.query.operators.findFirst({ where: eq(operators.account, DEMO.operator2.account) }))!;
  const png = Uint8Array.from(atob(DEMO_SCREENSHOT_PNG), (ch) => ch.charCodeAt(0));
  const upload = await storeUpload(db, bucket, demo.id, png, now_ms);
  if (upload.status !== "ok") throw new Error(`seed: screenshot: ${upload.status}`);
  const [trc20] = await listChannels(db, { only_enabled: true });
  // The first key last: it marks the whole opening as done.
  for (const [i, key] of ["seed:demo-opening-deposit-2", "seed:demo-opening-deposit"].entries()) {
    const tx_hash = `demo-seed-${i}`.padEnd(64, "0");
    const submitted = await submitDeposit(db, { user_id: demo.id, kind: "crypto", channel_id: trc20.id, amount_micro: 5_000 * USDT, tx_hash, image_id: upload.upload.id, request_key: key }, now_ms);
    if (submitted.status !== "ok") throw new Error(`seed: deposit: ${submitted.status}`);
    if (submitted.deposit.status !== "review") continue;
    let approved = await approveDeposit(db, operator.id, submitted.deposit.id, { amount_micro: 5_000 * USDT, tx_ref: tx_hash }, now_ms);
    if (approved.status === "ok" && approved.deposit.status === "confirming") approved = await approveDeposit(db, auditor.id, submitted.deposit.id, { amount_micro: 5_000 * USDT, tx_ref: tx_hash }, now_ms);
    if (approved.status !== "ok") throw new Error(`seed: approve: ${approved.status}`);
  }
  return ["10,000 USDT for demo"];
}

/**
 * The demo's markets, BTC/USDT and ETH/USDT, each with 30 s, 60 s and 5 min deliveries, less those
 * whose symbol `present` already holds. By symbol, not "is there any market": a database that
 * already holds other markets (a test's, an operator's) still gets the demo's two, and a second
 * start adds nothing.
 */
export function demoMarketsMissing(present: ReadonlySet<string>) {
  const durations = [
    { seconds: 30, profit_rate_bp: 8500, min_stake_micro: 10 * USDT, max_stake_micro: 10_000 * USDT },
    { seconds: 60, profit_rate_bp: 8800, min_stake_micro: 10 * USDT, max_stake_micro: 20_000 * USDT },
    { seconds: 300, profit_rate_bp: 9000, min_stake_micro: 50 * USDT, max_stake_micro: 50_000 * USDT },
  ];
  const common = { fee_rate_bp: 100, quote_tolerance_bp: 50, trading_hours: "", enabled: true, tick_size_e8: 1_000_000, durations };
  return [
    { symbol: "BTC/USDT", name: "Bitcoin", feed_symbol: "BTCUSDT", start_price_e8: 67_250 * 1e8, sort: 0, ...common },
    { symbol: "ETH/USDT", name: "Ethereum", feed_symbol: "ETHUSDT", start_price_e8: 3_480 * 1e8, sort: 1, ...common },
  ].filter((m) => !present.has(m.symbol));
}

async function seedProducts(db: Db, now_ms: number): Promise<string[]> {
  const demo = demoMarketsMissing(new Set((await db.select({ symbol: products.symbol }).from(products)).map((p) => p.symbol)));
  for (const m of demo) await saveProduct(db, null, m, "demo seed", now_ms);
  return demo.length ? [`markets ${demo.map((m) => m.symbol).join(", ")}`] : [];
}

/** The loan service's product (7 days, 0.68 % a day, 1 % a remaining day to redeem early) and a miner plan. */
async function seedEarn(db: Db, now_ms: number): Promise<string[]> {
  const done: string[] = [];
  if ((await listPoolProducts(db, { only_enabled: false })).length === 0) {
    await savePoolProduct(db, null, null, { name: "Liquidity pool · 7 days", days: 7, daily_rate_bp: 68, min_amount_micro: 100 * USDT, max_amount_micro: 1_000_000 * USDT, penalty_rate_bp: 100, enabled: true, sort: 0 }, "demo seed", now_ms);
    done.push("pool product");
  }
  if ((await listMinerPlans(db, { only_enabled: false })).length === 0) {
    await saveMinerPlan(db, null, null, { name: "Miner S1 · 30 days", price_micro: 300 * USDT, days: 30, daily_output_micro: 12 * USDT, stock: 1000, enabled: true, sort: 0 }, "demo seed", now_ms);
    done.push("miner plan");
  }
  return done;
}

/** The demo's recharge promotion, in every language: 10 % of one deposit up to 50 USDT, from 100 USDT. */
const DEMO_PROMOTION_TEXTS: PromotionTexts = {
  en: { title: "Welcome recharge bonus", terms: "Book an appointment with customer service, then deposit at least 100 USDT: you get 10 % of that deposit, up to 50 USDT. One bonus per person." },
  es: { title: "Bono de recarga de bienvenida", terms: "Reserve una cita con atención al cliente y deposite al menos 100 USDT: recibe el 10 % de ese depósito, hasta 50 USDT. Un bono por persona." },
  th: { title: "โบนัสเติมเงินต้อนรับ", terms: "จองนัดหมายกับฝ่ายบริการลูกค้า แล้วฝากอย่างน้อย 100 USDT: รับ 10% ของยอดฝากนั้น สูงสุด 50 USDT หนึ่งโบนัสต่อหนึ่งคน" },
  de: { title: "Willkommens-Einzahlungsbonus", terms: "Buchen Sie einen Termin beim Kundenservice und zahlen Sie mindestens 100 USDT ein: Sie erhalten 10 % dieser Einzahlung, höchstens 50 USDT. Ein Bonus pro Person." },
  it: { title: "Bonus di benvenuto sulla ricarica", terms: "Prenota un appuntamento con il servizio clienti, poi deposita almeno 100 USDT: ricevi il 10% di quel deposito, fino a 50 USDT. Un bonus a persona." },
  pt: { title: "Bônus de recarga de boas-vindas", terms: "Agende um atendimento com o suporte e deposite pelo menos 100 USDT: você recebe 10% desse depósito, até 50 USDT. Um bônus por pessoa." },
  ja: { title: "ウェルカム入金ボーナス", terms: "カスタマーサービスに予約してから100 USDT以上を入金すると、その入金の10%（上限50 USDT）を受け取れます。お一人様1回限りです。" },
  "zh-Hant": { title: "新手充值獎金", terms: "先向客服預約，再充值至少 100 USDT：可獲得該筆充值的 10%，最多 50 USDT。每人限一次。" },
  vi: { title: "Thưởng nạp tiền chào mừng", terms: "Đặt lịch hẹn với bộ phận chăm sóc khách hàng rồi nạp ít nhất 100 USDT: bạn nhận 10% khoản nạp đó, tối đa 50 USDT. Mỗi người một lần." },
  "zh-Hans": { title: "新手充值奖金", terms: "先向客服预约，再充值至少 100 USDT：可获得该笔充值的 10%，最多 50 USDT。每人限一次。" },
};

/** One open recharge promotion (the seed sets terms nobody needs to check: operator null). */
async function seedPromotions(db: Db, now_ms: number): Promise<string[]> {
  if ((await db.select({ id: promotions.id }).from(promotions).limit(1)).length > 0) return [];
  const DAY = 86_400_000;
  const today = now_ms - (now_ms % DAY);
  const input = { kind: "recharge_bonus" as const, texts: DEMO_PROMOTION_TEXTS, percent_bp: 1000, cap_micro: 50 * USDT, min_deposit_micro: 100 * USDT, starts_at_ms: today - 30 * DAY, ends_at_ms: today + 90 * DAY, enabled: true, sort: 0 };
  const r = await savePromotion(db, null, null, input, "demo seed", now_ms);
  if (r.status !== "ok") throw new Error(`seed: promotion: ${r.status}`);
  return ["recharge promotion"];
}
