import { eq } from "drizzle-orm";
import { bank_cards, wallets } from "../../../worker/db/schema";
import { call, db, operatorToken, type Answer } from "../helpers";

export const USDT = 1_000_000;
/** A valid 24×16 PNG (the same the demo seed uses). */
export const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAABgAAAAQCAIAAACDRijCAAAAUklEQVR4nO3MIQJAUBQAwX+wPeo2QRAEQRAEQRAEQRAEQRAEQRA4hPrmAJPwxQdvvPDEA3fccMUFZ5xwxAF77LDFBmussMQCc8xSRBFFFNG/6AMk732fPYXb4wAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
export const TRC20 = ["TCvAsN4KpsZMAYTpHeEYgt1YuoBPF4HT9S", "TLLX521joHfWAPNsBxHaqVTBm1Qg8kS5HU"] as const;
/** Passes the Luhn check. */
export const CARD = "6222021234567894";

let n = 0;
export const rkey = (p = "k") => `${p}-${Date.now().toString(36)}-${++n}-xyz`;

export async function upload(token: string, bytes: Uint8Array = PNG, name = "shot.png", type = "image/png") {
  const fd = new FormData();
  fd.set("file", new File([bytes as BlobPart], name, { type }));
  return call<{ id: string; url: string; error?: string; width?: number; height?: number }>("/api/common/upload", fd, { token });
}

/** An operator session for money routes (tests/api/helpers.ts: signed in with a code, confirmed recently). */
export { operatorToken };

/** Submits a crypto recharge on the seeded TRC20 channel. */
export async function recharge(token: string, amount: string, key = rkey("dep")): Promise<Answer> {
  const img = await upload(token);
  const channels = await call("/api/index/recharge_way");
  const trc20 = channels.data.find((c: { chain: string }) => c.chain === "TRC20");
  return call("/api/user/recharge", { channel_id: trc20.id, amount, tx_hash: `0x${key.replace(/[^0-9a-z]/gi, "")}`, image: img.data.url }, { token, headers: { "idempotency-key": key } });
}

export async function fundedUser(amount = "1000") {
  const { newUser } = await import("../helpers");
  const u = await newUser();
  const dep = await recharge(u.token, amount);
  const op = await operatorToken();
  await credit(op, dep.data.id, amount);
  return { ...u, op };
}

/**
 * Credits a deposit at its claimed amount: the operator's approval, and when it waits for a second
 * operator (past the threshold or a rolling solo total), the other demo operator's confirmation.
 */
export async function credit(op: string, id: number, amount: string): Promise<Answer> {
  const first = await approve(op, id, amount);
  if (first.code !== 1) throw new Error(`approve: ${first.msg}`);
  if (first.data.status !== "confirming") return first;
  const second = await approve(await operatorToken("auditor"), id, amount);
  if (second.code !== 1) throw new Error(`confirm: ${second.msg}`);
  return second;
}

/** An operator's approval with what they verified (the amount that arrived and its reference). */
export function approve(op: string, id: number, amount: string, tx_ref = `verified-${id}`): Promise<Answer> {
  return call(`/api/admin/deposits/${id}/approve`, { amount, tx_ref }, { token: op });
}

/** The login password of every user `newUser` makes (money actions confirm it). */
export const PASSWORD = "secret123";

export async function bindWallet(token: string, address: string = TRC20[0], password = PASSWORD) {
  const r = await call("/api/user/add_wallet", { chain: "TRC20", address, password }, { token });
  if (r.code !== 1) throw new Error(`add_wallet: ${r.msg}`);
  await openBindings(token);
  return r.data.id as number;
}

export async function balance(token: string) {
  const me = await call("/api/user/user", {}, { token });
  return { available: me.data.balance_micro as number, locked: me.data.locked_micro as number };
}

/**
 * Opens the user's bound addresses and cards at once. These tests are about withdrawals, not
 * the allow-list's waiting period (tests/api/trading-limits.test.ts waits it out with the clock).
 */
export async function openBindings(token: string) {
  const me = await call("/api/user/user", {}, { token });
  await db.batch([db.update(wallets).set({ opens_at_ms: 0 }).where(eq(wallets.user_id, me.data.id)), db.update(bank_cards).set({ opens_at_ms: 0 }).where(eq(bank_cards.user_id, me.data.id))]);
}
