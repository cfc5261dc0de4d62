import { asc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { deposit_channels } from "../../db/schema";
import { auditInsert } from "../audit/log";
import { openState } from "../audit/second-operator";

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

/**
 * Operator (audited) or demo seed (operator null): a new deposit channel. One an operator
 * makes starts closed: a different operator opens it after checking the xpub, since the xpub
 * decides whose wallet every user's deposits reach.
 */
export async function createChannel(db: Db, operator_id: number | null, input: ChannelInput, reason: string, now_ms: number) {
  const insert = db
    .insert(deposit_channels)
    .values({ ...input, ...openState(operator_id, null, input.enabled, true)!, created_at_ms: now_ms })
    .returning();
  if (operator_id === null) return (await insert)[0];
  const [rows] = await db.batch([insert, auditInsert(db, { operator_id, action: "config.deposit_channel_create", target: `${input.currency}/${input.chain}`, reason, data: input }, now_ms)]);
  return rows[0];
}

/**
 * An operator's change of a channel, audited with before and after. A new xpub (or chain)
 * closes the channel until a different operator opens it; the one who set it cannot
 * (`four_eyes_same_operator`).
 */
export async function updateChannel(db: Db, operator_id: number, id: number, input: ChannelInput, reason: string, now_ms: number) {
  const before = await db.query.deposit_channels.findFirst({ where: eq(deposit_channels.id, id) });
  if (!before) return { status: "not_found" as const };
  const state = openState(operator_id, before, input.enabled, before.xpub !== input.xpub || before.chain !== input.chain);
  if (!state) return { status: "four_eyes_same_operator" as const };
  await db.batch([
    db.update(deposit_channels).set({ ...input, ...state }).where(eq(deposit_channels.id, id)),
    auditInsert(db, { operator_id, action: "config.deposit_channel_update", target: `deposit_channel:${id}`, reason, data: { before, after: { ...input, enabled: state.enabled === 1 } } }, now_ms),
  ]);
  return { status: "ok" as const, enabled: state.enabled === 1 };
}
