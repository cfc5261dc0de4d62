import { and, asc, desc, eq, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { deposit_channels, deposits } from "../../db/schema";
import { requestHash } from "../money/request-hash";
import { depositRefusedByExclusion } from "../limits/limits";
import { refusedBy } from "../../db/refusal";
import { userDepositAddress } from "./address-book";
import { getBankAccount } from "./bank-account";

export type Deposit = typeof deposits.$inferSelect;


export type SubmitDeposit = {
  user_id: number;
  kind: "crypto" | "bank";
  channel_id: number | null;
  amount_micro: number;
  tx_hash: string;
  image_id: string;
  request_key: string;
};

export type SubmitResult =
  | { status: "ok"; deposit: Deposit; replayed: boolean }
  | { status: "channel_unknown" | "below_minimum" | "idempotency_conflict" | "bank_unavailable" | "tx_hash_used" | "deposit_address_unavailable" | "self_excluded"; min_amount_micro?: number }
  | { status: "too_many_pending"; max: number };

/**
 * A transaction hash as stored and compared: trimmed, and hexadecimal hashes (TRC20 ids,
 * 0x-prefixed Ethereum hashes) lower-cased, since the same hash can be typed either way.
 */
export function normalizeTxHash(text: string): string {
  const t = text.trim();
  return /^(0x)?[0-9a-f]+$/i.test(t) ? t.toLowerCase() : t;
}

/** Deposits one user may have waiting for review at once; the migration's trigger holds it. */
export const MAX_PENDING_DEPOSITS = 5;

/**
 * Records a deposit for review. No money moves until an operator approves it. The client's
 * key makes a resubmission return the first deposit instead of creating a second.
 */
export async function submitDeposit(db: Db, submitted: SubmitDeposit, now_ms: number): Promise<SubmitResult> {
  const input = { ...submitted, tx_hash: normalizeTxHash(submitted.tx_hash) };
  const hash = requestHash({ kind: input.kind, channel_id: input.channel_id, amount_micro: input.amount_micro, tx_hash: input.tx_hash, image_id: input.image_id });
  const existing = await findByRequest(db, input.user_id, input.request_key);
  if (existing) return existing.request_hash === hash ? { status: "ok", deposit: existing, replayed: true } : { status: "idempotency_conflict" };

  let destination: string;
  let min_amount_micro: number;
  let address = "";
  if (input.kind === "crypto") {
    const channel = input.channel_id === null ? undefined : await db.query.deposit_channels.findFirst({ where: and(eq(deposit_channels.id, input.channel_id), eq(deposit_channels.enabled, 1)) });
    if (!channel) return { status: "channel_unknown" };
    // The user's own address: a transfer to it can only be this user's.
    const own = await userDepositAddress(db, input.user_id, channel, now_ms);
    if (own.status !== "ok") return { status: "deposit_address_unavailable" };
    address = own.address;
    destination = `${channel.currency} · ${channel.chain} · ${address}`;
    min_amount_micro = channel.min_amount_micro;
  } else {
    const bank = await getBankAccount(db);
    if (!bank.enabled) return { status: "bank_unavailable" };
    destination = `${bank.bank} · ${bank.holder} · ${bank.account}`;
    min_amount_micro = bank.min_amount_micro;
  }
  if (input.amount_micro < min_amount_micro) return { status: "below_minimum", min_amount_micro };

  try {
    await db.insert(deposits).values({
      user_id: input.user_id,
      kind: input.kind,
      channel_id: input.kind === "crypto" ? input.channel_id : null,
      destination,
      amount_micro: input.amount_micro,
      tx_hash: input.tx_hash,
      image_id: input.image_id,
      address,
      status: "review",
      request_key: input.request_key,
      request_hash: hash,
      created_at_ms: now_ms,
    });
  } catch (err) {
    // A cool-off or self-exclusion (the deposits trigger): no money in until it ends.
    if (depositRefusedByExclusion(err)) return { status: "self_excluded" };
    // Already MAX_PENDING_DEPOSITS waiting for review (the deposits_pending_quota trigger).
    if (refusedBy(err, [["deposits_pending_limit", "too_many_pending"] as const])) return { status: "too_many_pending", max: MAX_PENDING_DEPOSITS };
    // A concurrent submit with the same key won the race: answer as a replay.
    const raced = await findByRequest(db, input.user_id, input.request_key);
    if (raced) return raced.request_hash === hash ? { status: "ok", deposit: raced, replayed: true } : { status: "idempotency_conflict" };
    // Or another deposit holds the same transaction (the partial unique index is the rule).
    if (input.kind === "crypto" && (await txHashTaken(db, input.channel_id, input.tx_hash))) return { status: "tx_hash_used" };
    throw err;
  }
  return { status: "ok", deposit: (await findByRequest(db, input.user_id, input.request_key))!, replayed: false };
}

/** Is this transaction already claimed by a deposit under review or approved on the channel? */
async function txHashTaken(db: Db, channel_id: number | null, tx_hash: string): Promise<boolean> {
  if (channel_id === null) return false;
  const row = await db.query.deposits.findFirst({
    columns: { id: true },
    where: and(eq(deposits.channel_id, channel_id), eq(deposits.tx_hash, tx_hash), eq(deposits.kind, "crypto"), ne(deposits.status, "rejected")),
  });
  return row !== undefined;
}

function findByRequest(db: Db, user_id: number, request_key: string) {
  return db.query.deposits.findFirst({ where: and(eq(deposits.user_id, user_id), eq(deposits.request_key, request_key)) });
}

export async function listUserDeposits(db: Db, user_id: number, page: { page_no: number; row: number }) {
  const items = await db
    .select()
    .from(deposits)
    .where(eq(deposits.user_id, user_id))
    .orderBy(desc(deposits.id))
    .limit(page.row)
    .offset((page.page_no - 1) * page.row);
  const [{ total }] = await db.select({ total: sql<number>`count(*)` }).from(deposits).where(eq(deposits.user_id, user_id));
  return { items, total };
}

export async function listDepositsByStatus(db: Db, status: Deposit["status"] | "all", page: { page_no: number; row: number }) {
  const where = status === "all" ? undefined : eq(deposits.status, status);
  const items = await db
    .select()
    .from(deposits)
    .where(where)
    // Waiting queues oldest first; decided lists newest first.
    .orderBy(status === "review" || status === "confirming" ? asc(deposits.id) : desc(deposits.id))
    .limit(page.row)
    .offset((page.page_no - 1) * page.row);
  const [{ total }] = await db.select({ total: sql<number>`count(*)` }).from(deposits).where(where);
  return { items, total };
}
