import { and, eq, isNotNull, sql } from "drizzle-orm";
import { d1Statements, type Db } from "../../db/client";
import { service_contexts, service_conversations, service_uploads } from "../../db/schema";
import { conversationForGuest, conversationForUser, hashGuestToken, type Conversation } from "./conversations";

export type HandOverPlan =
  | { status: "none" }
  /** The guest's conversation becomes the user's. */
  | { status: "adopt"; guest: Conversation }
  /** The user has one: the guest's messages, contexts and pictures move into it. */
  | { status: "merge"; guest: Conversation; own: Conversation };

/** What signing in does with the guest's conversation (by their token), if they have one. */
export async function planHandOver(db: Db, guest_token: string | null, user_id: number): Promise<HandOverPlan> {
  if (!guest_token || guest_token.length > 100) return { status: "none" };
  const guest = await conversationForGuest(db, hashGuestToken(guest_token));
  if (!guest) return { status: "none" };
  const own = await conversationForUser(db, user_id);
  return own ? { status: "merge", guest, own } : { status: "adopt", guest };
}

/**
 * The guest's conversation becomes the user's and the guest token stops reading it (so the
 * next visitor of a shared computer cannot). Conditional on the token hash still being there:
 * two sign-ins at once adopt it once.
 */
export async function adoptGuest(db: Db, guest_id: number, user_id: number): Promise<boolean> {
  const [row] = await db
    .update(service_conversations)
    .set({ user_id, guest_token_hash: null })
    .where(and(eq(service_conversations.id, guest_id), isNotNull(service_conversations.guest_token_hash)))
    .returning();
  return row !== undefined;
}

/** A guest message moving into the user's conversation: its id there (`to`) is the user's conversation's next. */
export type Move = { from: number; to: number };

/** Three bound values a move (CASE's WHEN and THEN, and the IN list): 30 moves stay under D1's 100. */
const MOVES_PER_STATEMENT = 30;

/**
 * Merges the guest's conversation into the user's, in one batch, run by the user's
 * conversation object (which gave the moved messages their new ids, after its own: the guest's
 * messages show as the newest). A guest message not in `moves` (the user's conversation
 * already holds its client id: the same message sent twice) stays behind in the emptied,
 * closed guest conversation.
 */
export async function mergeGuest(db: Db, guest: Conversation, own: Conversation, moves: Move[]): Promise<void> {
  const guest_newer = (guest.last_message_at_ms ?? 0) > (own.last_message_at_ms ?? 0);
  const chunks: Move[][] = [];
  for (let i = 0; i < moves.length; i += MOVES_PER_STATEMENT) chunks.push(moves.slice(i, i + MOVES_PER_STATEMENT));
  await db.$client.batch(d1Statements(db, [
    ...chunks.map((chunk) => {
      const cases = sql.join(chunk.map((m) => sql`WHEN ${m.from} THEN ${m.to}`), sql` `);
      return sql`UPDATE service_messages SET conversation_id = ${own.id}, id = CASE id ${cases} END WHERE id IN (${sql.join(chunk.map((m) => sql`${m.from}`), sql`, `)})`;
    }),
    db.update(service_uploads).set({ conversation_id: own.id }).where(eq(service_uploads.conversation_id, guest.id)),
    db.insert(service_contexts).select(
      db.select({ conversation_id: service_conversations.id, kind: service_contexts.kind, ref_id: service_contexts.ref_id, created_at_ms: service_contexts.created_at_ms }).from(service_contexts).innerJoin(service_conversations, eq(service_conversations.id, own.id)).where(eq(service_contexts.conversation_id, guest.id)),
    ).onConflictDoNothing(),
    db.delete(service_contexts).where(eq(service_contexts.conversation_id, guest.id)),
    db
      .update(service_conversations)
      .set({ guest_token_hash: null, status: "closed", merged_into_id: own.id, last_message_preview: "" })
      .where(eq(service_conversations.id, guest.id)),
    db
      .update(service_conversations)
      .set(guest_newer ? { status: "open", last_message_at_ms: guest.last_message_at_ms, last_message_preview: guest.last_message_preview } : { status: "open" })
      .where(eq(service_conversations.id, own.id)),
  ]));
}
