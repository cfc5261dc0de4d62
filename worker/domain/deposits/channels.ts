import { asc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { deposit_channels } from "../../db/schema";
import { auditInsert } from "../audit/log";

export type DepositChannel = typeof deposit_channels.$inferSelect;

export async function listChannels(db: Db, opts: { only_enabled: boolean }): Promise<DepositChannel[]> {
  return db
    .select()
    .from(deposit_channels)
    .where(opts.only_enabled ? eq(deposit_channels.enabled, 1) : undefined)
    .orderBy(asc(deposit_channels.sort), asc(deposit_channels.id));
}

/**
 * `xpub`: the channel's extended public key, from which each user's own address is derived
 * (callers validate it with `parseXpub`); `address` is kept for channels made before.
 */
export type ChannelInput = { currency: string; chain: string; address: string; xpub: string; min_amount_micro: number; enabled: boolean; sort: number };

/** Operator (audited) or demo seed (operator null): a new deposit channel. */
export async function createChannel(db: Db, operator_id: number | null, input: ChannelInput, reason: string, now_ms: number) {
  const insert = db
    .insert(deposit_channels)
    .values({ ...input, enabled: input.enabled ? 1 : 0, created_at_ms: now_ms })
    .returning();
  if (operator_id === null) return (await insert)[0];
  const [rows] = await db.batch([insert, auditInsert(db, { operator_id, action: "config.deposit_channel_create", target: `${input.currency}/${input.chain}`, reason, data: input }, now_ms)]);
  return rows[0];
}

export async function updateChannel(db: Db, operator_id: number, id: number, input: ChannelInput, reason: string, now_ms: number) {
  const before = await db.query.deposit_channels.findFirst({ where: eq(deposit_channels.id, id) });
  if (!before) return { status: "not_found" as const };
  await db.batch([
    db.update(deposit_channels).set({ ...input, enabled: input.enabled ? 1 : 0 }).where(eq(deposit_channels.id, id)),
    auditInsert(db, { operator_id, action: "config.deposit_channel_update", target: `deposit_channel:${id}`, reason, data: { before, after: input } }, now_ms),
  ]);
  return { status: "ok" as const };
}
