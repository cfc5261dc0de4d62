import { and, eq, isNotNull, sql } from "drizzle-orm";
import { d1Statements, type Db } from "../../db/client";
import { service_contexts, service_conversations, service_uploads } from "../../db/schema";
import { conversationForGuest, conversationForUser, hashGuestToken } from "./conversations";

export type HandOver =
  | { status: "none" }
  /** The guest's conversation became the user's. */
  | { status: "adopted"; conversation_id: number; guest_conversation_id: number }
  /** The user had one: the guest's messages, contexts and pictures moved into it. */
  | { status: "merged"; conversation_id: number; guest_conversation_id: number };

/**
 * At sign-in or registration: the guest's conversation follows them into their account, and
 * the guest token stops reading it (so the next visitor of a shared computer cannot). If the
 * user already has a conversation, the guest's messages move into it with their ids; ids are
 * given in the order messages were written, so the merged history stays in time order.
 */
export async function handOverGuest(db: Db, guest_token: string | null, user_id: number, now_ms: number): Promise<HandOver> {
  if (!guest_token || guest_token.length > 100) return { status: "none" };
  const guest = await conversationForGuest(db, hashGuestToken(guest_token));
  if (!guest) return { status: "none" };
  const own = await conversationForUser(db, user_id);
  if (!own) {
    // Conditional on the token hash still being there: two sign-ins at once adopt it once.
    const [row] = await db
      .update(service_conversations)
      .set({ user_id, guest_token_hash: null })
      .where(and(eq(service_conversations.id, guest.id), isNotNull(service_conversations.guest_token_hash)))
      .returning();
    return row ? { status: "adopted", conversation_id: guest.id, guest_conversation_id: guest.id } : { status: "none" };
  }
  const guest_newer = (guest.last_message_at_ms ?? 0) > (own.last_message_at_ms ?? 0);
  await db.$client.batch(d1Statements(db, [
    // OR IGNORE: a guest message whose client id the user's conversation already holds is the
    // same message sent twice; it stays behind in the emptied guest conversation.
    sql`UPDATE OR IGNORE service_messages SET conversation_id = ${own.id} WHERE conversation_id = ${guest.id}`,
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
  return { status: "merged", conversation_id: own.id, guest_conversation_id: guest.id };
}
