import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { invite_codes, users } from "../../db/schema";
import { normalizeInviteCode } from "./rules";

export type SetInviterResult = { status: "ok" } | { status: "invite_unknown" | "invite_own" | "inviter_already_set" };

/** How far up an inviter chain we look for the user themselves (chains are short; this bounds the reads). */
const CHAIN_DEPTH_MAX = 16;

/**
 * An account that came in without an invitation code (a wallet's first sign-in) may name its
 * inviter once, later. Only once: the update is guarded on "no code yet", so two racing
 * requests set it at most once and an inviter, once set, never changes. Nobody is their own
 * inviter, directly or around a loop (A invited by B invited by A).
 */
export async function setInviterLater(db: Db, user_id: number, code_input: string): Promise<SetInviterResult> {
  const code = normalizeInviteCode(code_input);
  const invite = await db.query.invite_codes.findFirst({ where: eq(invite_codes.code, code) });
  if (!invite || invite.enabled !== 1) return { status: "invite_unknown" };
  if (await isInChain(db, invite.owner_user_id, user_id)) return { status: "invite_own" };
  const updated = await db
    .update(users)
    .set({ inviter_id: invite.owner_user_id, invited_with_code: invite.code })
    .where(stillWithoutCode(user_id))
    .returning({ id: users.id });
  return updated.length === 1 ? { status: "ok" } : { status: "inviter_already_set" };
}

function stillWithoutCode(user_id: number) {
  // `invited_with_code` "" is how "came in without a code" is stored (decision 059).
  return sql`${users.id} = ${user_id} AND ${users.invited_with_code} = ''`;
}

/** True when `user_id` is `start` or one of the inviters above it. */
async function isInChain(db: Db, start: number | null, user_id: number): Promise<boolean> {
  for (let id = start, depth = 0; id !== null && depth < CHAIN_DEPTH_MAX; depth++) {
    if (id === user_id) return true;
    const row = await db.query.users.findFirst({ where: eq(users.id, id), columns: { inviter_id: true } });
    id = row?.inviter_id ?? null;
  }
  return false;
}
