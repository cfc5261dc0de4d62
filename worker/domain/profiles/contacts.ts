/**
 * A profile's email and phone count only once verified by a one-time code (decision 138): the
 * code goes to the address itself, and confirming it stamps `<channel>_verified_at_ms` while the
 * profile still holds that address. A changed address is unverified again (submitProfile), and
 * recovery codes and notices go only to a verified email.
 */
import { and, eq, isNotNull, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { profiles, users } from "../../db/schema";
import { issueCode, useCode, type CodePurpose, type IssueResult, type UseResult } from "../identity/one-time-codes";
import type { Profile } from "./profiles";

export const CONTACT_CHANNELS = ["email", "phone"] as const;
export type ContactChannel = (typeof CONTACT_CHANNELS)[number];

/** The refusals of the contact routes, besides the code's own (their words: errors.<status>). */
export const CONTACT_REFUSALS = ["contact_missing", "contact_verified", "contact_in_use", "sms_unavailable"] as const;

export const purposeOf = (channel: ContactChannel): CodePurpose => (channel === "email" ? "verify_email" : "verify_phone");

/** The key a code for an address is stored under: emails compare without case (as mailboxes do in practice), phones as stored (E.164). */
export function addressKey(channel: ContactChannel, address: string): string {
  return channel === "email" ? address.trim().toLowerCase() : address.trim();
}

export const verifiedAt = (p: Pick<Profile, "email_verified_at_ms" | "phone_verified_at_ms">, channel: ContactChannel) =>
  channel === "email" ? p.email_verified_at_ms : p.phone_verified_at_ms;

export type SendContactResult = { status: "contact_missing" } | { status: "contact_verified" } | (IssueResult & { address: string });

/** A code for the profile's current email or phone. */
export async function sendContactCode(db: Db, user_id: number, channel: ContactChannel, network: string | null, now_ms: number): Promise<SendContactResult> {
  const profile = await db.query.profiles.findFirst({ where: eq(profiles.user_id, user_id) });
  const address = profile?.[channel] ?? "";
  if (!profile || address === "") return { status: "contact_missing" };
  if (verifiedAt(profile, channel) !== null) return { status: "contact_verified" };
  const issued = await issueCode(db, { purpose: purposeOf(channel), address: addressKey(channel, address), user_id, sent_to: address, network }, now_ms);
  return { ...issued, address };
}

export type ConfirmContactResult = { status: "ok"; address: string } | { status: "contact_missing" } | { status: "contact_in_use" } | Exclude<UseResult, { status: "ok" }>;

/**
 * One attempt at the code for the profile's current address. A right code sent for another user
 * (two accounts typed the same address) proves nothing for this one. An email another account
 * has verified stays theirs (recovery by email must name one account); the person here has just
 * shown the mailbox is theirs, so telling them is no leak.
 */
export async function confirmContact(db: Db, user_id: number, channel: ContactChannel, code: string, now_ms: number): Promise<ConfirmContactResult> {
  const profile = await db.query.profiles.findFirst({ where: eq(profiles.user_id, user_id) });
  const address = profile?.[channel] ?? "";
  if (!profile || address === "") return { status: "contact_missing" };
  const key = addressKey(channel, address);
  const used = await useCode(db, { purpose: purposeOf(channel), address: key, code }, now_ms);
  if (used.status !== "ok") return used;
  if (used.user_id !== user_id || used.sent_to !== address) return { status: "code_missing" };
  if (channel === "email" && (await verifiedEmailOwner(db, key, user_id)) !== null) return { status: "contact_in_use" };
  const column = channel === "email" ? profiles.email_verified_at_ms : profiles.phone_verified_at_ms;
  const stamped = await db
    .update(profiles)
    .set(channel === "email" ? { email_verified_at_ms: now_ms } : { phone_verified_at_ms: now_ms })
    // Only while the profile still holds the address the code went to.
    .where(and(eq(profiles.user_id, user_id), eq(profiles[channel], address), sql`${column} IS NULL`))
    .returning({ user_id: profiles.user_id });
  return stamped.length > 0 ? { status: "ok", address } : { status: "contact_missing" };
}

/** The account (other than `except_user_id`) whose verified email this is, or null. */
async function verifiedEmailOwner(db: Db, email_key: string, except_user_id: number): Promise<number | null> {
  const [row] = await db
    .select({ user_id: profiles.user_id })
    .from(profiles)
    .where(and(sql`lower(${profiles.email}) = ${email_key}`, isNotNull(profiles.email_verified_at_ms), ne(profiles.user_id, except_user_id)))
    .limit(1);
  return row?.user_id ?? null;
}

/** Where a user's mail goes: their verified email and language, or null (no verified email). */
export type MailTarget = { user_id: number; account: string; email: string; lang: string | null };

export async function verifiedEmailOf(db: Db, user_id: number): Promise<MailTarget | null> {
  const [row] = await db
    .select({ user_id: users.id, account: users.account, email: profiles.email, lang: users.lang })
    .from(users)
    .innerJoin(profiles, eq(profiles.user_id, users.id))
    .where(and(eq(users.id, user_id), isNotNull(profiles.email_verified_at_ms)));
  return row ?? null;
}

/** The account a recovery names: by account name, or by a verified email. One query either way. */
export async function recoveryTarget(db: Db, by: { account: string } | { email_key: string }): Promise<MailTarget | null> {
  const where = "account" in by ? eq(users.account, by.account) : sql`lower(${profiles.email}) = ${by.email_key}`;
  const [row] = await db
    .select({ user_id: users.id, account: users.account, email: profiles.email, lang: users.lang })
    .from(users)
    .innerJoin(profiles, eq(profiles.user_id, users.id))
    .where(and(where, isNotNull(profiles.email_verified_at_ms)))
    .limit(1);
  return row ?? null;
}
