import { and, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { bank_cards, wallets } from "../../db/schema";
import { isUniqueViolation } from "../identity/users";
import { cardFingerprint, cardFingerprints, isSealed, sealCard, type CardKeys } from "../crypto/sealing";
import { isTronAddress } from "../chains/tron";
import { cardLast4, isValidCardNumber, normalizeCardNumber } from "./validate";
import { bindingOpensAt } from "./waiting";

/** Chains a user can bind for withdrawals. Only USDT on TRC20 for now (the product's withdrawal). */
export const WALLET_CHAINS = ["TRC20"] as const;
export type WalletChain = (typeof WALLET_CHAINS)[number];
/** At most this many live wallets or cards per user: plenty, and a bound on abuse. */
export const MAX_BOUND = 10;

export type Wallet = typeof wallets.$inferSelect;
export type BankCard = typeof bank_cards.$inferSelect;

export async function listWallets(db: Db, user_id: number): Promise<Wallet[]> {
  return db.select().from(wallets).where(and(eq(wallets.user_id, user_id), isNull(wallets.deleted_at_ms))).orderBy(desc(wallets.id));
}

export async function addWallet(
  db: Db,
  input: { user_id: number; chain: string; address: string },
  now_ms: number,
): Promise<{ status: "ok"; wallet: Wallet } | { status: "chain_unsupported" | "address_invalid" | "duplicate" | "limit_reached" }> {
  const chain = input.chain.trim().toUpperCase();
  if (!(WALLET_CHAINS as readonly string[]).includes(chain)) return { status: "chain_unsupported" };
  const address = input.address.trim();
  if (!isTronAddress(address)) return { status: "address_invalid" };
  if ((await listWallets(db, input.user_id)).length >= MAX_BOUND) return { status: "limit_reached" };
  try {
    const [wallet] = await db.insert(wallets).values({ user_id: input.user_id, currency: "USDT", chain, address, created_at_ms: now_ms, opens_at_ms: await bindingOpensAt(db, now_ms) }).returning();
    return { status: "ok", wallet };
  } catch (err) {
    if (isUniqueViolation(err, "wallets.")) return { status: "duplicate" };
    throw err;
  }
}

/** Deleting hides the wallet; withdrawals made to it keep their own copy of the address. */
export async function deleteWallet(db: Db, user_id: number, id: number, now_ms: number): Promise<{ status: "ok" | "not_found" }> {
  const r = await db
    .update(wallets)
    .set({ deleted_at_ms: now_ms })
    .where(and(eq(wallets.id, id), eq(wallets.user_id, user_id), isNull(wallets.deleted_at_ms)))
    .returning({ id: wallets.id });
  return { status: r.length ? "ok" : "not_found" };
}

export async function listBankCards(db: Db, user_id: number): Promise<BankCard[]> {
  return db.select().from(bank_cards).where(and(eq(bank_cards.user_id, user_id), isNull(bank_cards.deleted_at_ms))).orderBy(desc(bank_cards.id));
}

export type AddBankCardResult = { status: "ok"; card: BankCard } | { status: "card_invalid" | "duplicate" | "limit_reached" };

/**
 * Binds a card: the number is stored only sealed (worker/domain/crypto/sealing.ts), found again by its
 * fingerprint, and shown by its last four digits.
 */
export async function addBankCard(
  db: Db,
  keys: CardKeys,
  input: { user_id: number; name: string; bank: string; card_number: string },
  now_ms: number,
): Promise<AddBankCardResult> {
  if (!isValidCardNumber(input.card_number)) return { status: "card_invalid" };
  const number = normalizeCardNumber(input.card_number);
  const live = await listBankCards(db, input.user_id);
  if (live.length >= MAX_BOUND) return { status: "limit_reached" };
  // Cards bound before encryption have no real fingerprint, only their plain number.
  if (live.some((c) => c.card_fingerprint.startsWith("legacy:") && !isSealed(c.card_number) && normalizeCardNumber(c.card_number) === number)) return { status: "duplicate" };
  // During a key rotation a card bound under an older key has that key's fingerprint.
  const known = await cardFingerprints(keys, number);
  if (live.some((c) => known.includes(c.card_fingerprint))) return { status: "duplicate" };
  const [card_number, card_fingerprint] = await Promise.all([sealCard(keys, number), cardFingerprint(keys, number)]);
  try {
    const [card] = await db
      .insert(bank_cards)
      .values({ user_id: input.user_id, name: input.name.trim(), bank: input.bank.trim(), card_number, card_fingerprint, card_last4: cardLast4(number), created_at_ms: now_ms, opens_at_ms: await bindingOpensAt(db, now_ms) })
      .returning();
    return { status: "ok", card };
  } catch (err) {
    if (isUniqueViolation(err, "bank_cards.")) return { status: "duplicate" };
    throw err;
  }
}

export async function deleteBankCard(db: Db, user_id: number, id: number, now_ms: number): Promise<{ status: "ok" | "not_found" }> {
  const r = await db
    .update(bank_cards)
    .set({ deleted_at_ms: now_ms })
    .where(and(eq(bank_cards.id, id), eq(bank_cards.user_id, user_id), isNull(bank_cards.deleted_at_ms)))
    .returning({ id: bank_cards.id });
  return { status: r.length ? "ok" : "not_found" };
}
