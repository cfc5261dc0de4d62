import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { deposit_addresses } from "../../db/schema";
import { deriveAddress } from "./addresses";
import type { DepositChannel } from "./channels";

export type UserAddress = { status: "ok"; address: string } | { status: "no_xpub" | "unavailable" };

/**
 * The user's own address on a channel: derived from the channel's xpub at index = user id,
 * recorded on first request (so operators can look up whose address received a payment), then
 * read back. The same user always gets the same address for the same xpub.
 */
export async function userDepositAddress(db: Db, user_id: number, channel: DepositChannel, now_ms: number): Promise<UserAddress> {
  if (!channel.xpub) return { status: "no_xpub" };
  const derived = deriveAddress(channel.chain, channel.xpub, user_id);
  if (derived.status !== "ok") return { status: "unavailable" };
  await db
    .insert(deposit_addresses)
    .values({ user_id, channel_id: channel.id, chain: channel.chain, xpub: channel.xpub, derivation_index: user_id, address: derived.address, created_at_ms: now_ms })
    .onConflictDoNothing();
  // Read by address: two channels on one chain sharing an xpub (two tokens on Ethereum) give
  // the user one address, recorded once under the first channel.
  const row = await db.query.deposit_addresses.findFirst({ where: and(eq(deposit_addresses.chain, channel.chain), eq(deposit_addresses.address, derived.address)) });
  if (!row || row.user_id !== user_id) return { status: "unavailable" };
  return { status: "ok", address: row.address };
}

/** Whose deposit addresses these are (operators checking where a payment arrived). */
export async function addressOwners(db: Db, addresses: string[]) {
  const wanted = [...new Set(addresses.filter(Boolean))];
  if (wanted.length === 0) return [];
  return db
    .select({ address: deposit_addresses.address, user_id: deposit_addresses.user_id, derivation_index: deposit_addresses.derivation_index })
    .from(deposit_addresses)
    .where(sql`${deposit_addresses.address} IN (SELECT value FROM json_each(${JSON.stringify(wanted)}))`);
}
