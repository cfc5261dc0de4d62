import { asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { service_contexts, service_conversations } from "../../db/schema";
import { hashSessionToken, newSessionToken } from "../identity/session";
import type { ContextKind } from "./rules";

export type Conversation = typeof service_conversations.$inferSelect;
export type Context = { kind: ContextKind; ref_id: number };

/** Who is asking on the visitor side: a signed-in user, or a guest by their cookie token's hash. */
export type Visitor = { kind: "user"; user_id: number } | { kind: "guest"; token_hash: string };

/** A new guest token: 256 random bits (like a session token); only its SHA-256 is stored. */
export function newGuestToken(): { token: string; token_hash: string } {
  const token = newSessionToken();
  return { token, token_hash: hashGuestToken(token) };
}

export const hashGuestToken = hashSessionToken;

export async function findConversation(db: Db, id: number): Promise<Conversation | undefined> {
  return db.query.service_conversations.findFirst({ where: eq(service_conversations.id, id) });
}

/** The user's conversation, if they have one (one per user). */
export async function conversationForUser(db: Db, user_id: number): Promise<Conversation | undefined> {
  return db.query.service_conversations.findFirst({ where: eq(service_conversations.user_id, user_id) });
}

export async function conversationForGuest(db: Db, token_hash: string): Promise<Conversation | undefined> {
  return db.query.service_conversations.findFirst({ where: eq(service_conversations.guest_token_hash, token_hash) });
}

export function conversationOf(db: Db, visitor: Visitor) {
  return visitor.kind === "user" ? conversationForUser(db, visitor.user_id) : conversationForGuest(db, visitor.token_hash);
}

/** Is this the visitor's own conversation? (A handed-over guest token owns nothing.) */
export function isMember(conversation: Conversation, visitor: Visitor): boolean {
  if (visitor.kind === "user") return conversation.user_id === visitor.user_id;
  return conversation.guest_token_hash !== null && conversation.guest_token_hash === visitor.token_hash;
}

/**
 * The visitor's conversation, created when they have none. Insert-or-ignore on the owner's
 * unique index, then read: two pages opening at once still end up with one conversation.
 */
export async function openConversation(db: Db, visitor: Visitor, guest_lang: string | null, now_ms: number): Promise<Conversation> {
  const existing = await conversationOf(db, visitor);
  if (existing) {
    if (visitor.kind === "guest" && guest_lang && existing.guest_lang !== guest_lang) {
      await db.update(service_conversations).set({ guest_lang }).where(eq(service_conversations.id, existing.id));
      return { ...existing, guest_lang };
    }
    return existing;
  }
  const owner = visitor.kind === "user" ? { user_id: visitor.user_id } : { guest_token_hash: visitor.token_hash, guest_lang };
  await db.insert(service_conversations).values({ ...owner, created_at_ms: now_ms }).onConflictDoNothing();
  return (await conversationOf(db, visitor))!;
}

/** Attaches a context (already checked by the caller); attaching the same one again changes nothing. */
export async function attachContext(db: Db, conversation_id: number, context: Context, now_ms: number): Promise<void> {
  await db.insert(service_contexts).values({ conversation_id, kind: context.kind, ref_id: context.ref_id, created_at_ms: now_ms }).onConflictDoNothing();
}

export async function contextsOf(db: Db, conversation_ids: number[]): Promise<Map<number, Context[]>> {
  const out = new Map<number, Context[]>();
  if (conversation_ids.length === 0) return out;
  const rows = await db
    .select()
    .from(service_contexts)
    .where(inArray(service_contexts.conversation_id, conversation_ids))
    .orderBy(asc(service_contexts.created_at_ms));
  for (const r of rows) out.set(r.conversation_id, [...(out.get(r.conversation_id) ?? []), { kind: r.kind, ref_id: r.ref_id }]);
  return out;
}

/**
 * Promotions live in their own table, which arrives with the promotions feature: until it
 * exists (no such table yet), no promotion exists either.
 */
export async function promotionExists(db: Db, id: number): Promise<boolean> {
  const table = await db.get(sql`SELECT 1 AS one FROM sqlite_master WHERE type = 'table' AND name = 'promotions'`);
  if (!table) return false;
  const row = await db.get(sql`SELECT 1 AS one FROM promotions WHERE id = ${id}`);
  return row !== undefined && row !== null;
}

const OWNED_TABLE: Record<Exclude<ContextKind, "promotion">, string> = { order: "orders", deposit: "deposits", withdrawal: "withdrawals" };

/**
 * May this visitor attach this context? Orders, deposits and withdrawals must be the signed-in
 * user's own (a guest has none); a promotion must exist.
 */
export async function contextAllowed(db: Db, visitor: Visitor, context: Context): Promise<boolean> {
  if (context.kind === "promotion") return promotionExists(db, context.ref_id);
  if (visitor.kind !== "user") return false;
  const table = sql.raw(OWNED_TABLE[context.kind]);
  const row = await db.get(sql`SELECT 1 AS one FROM ${table} WHERE id = ${context.ref_id} AND user_id = ${visitor.user_id}`);
  return row !== undefined && row !== null;
}
