/**
 * Decision 119: when a user's sessions end, nothing opened under them keeps working. The caller
 * has ended them in D1 (its own batch); then, before its request answers, every quote hub
 * forgets them (decision 106: the next order under them is refused) and the sockets opened under
 * them close: the user's channel (`/ws/user`) and their customer-service pages. Every way a user
 * session ends calls this: sign-out, ending one device, signing out the others, a password
 * change, and an operator ending them all.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { EndedSessions } from "../durable-objects/page-socket-api";
import { userChannel } from "../durable-objects/user-channel/channel-api";
import type { Db } from "./db/client";
import { service_conversations } from "./db/schema";
import type { Env } from "./env";
import { forgetSessions } from "./quotes";
import { logError } from "./observability/log";

export async function sessionsEnded(env: Env, db: Db, user_id: number, which: EndedSessions): Promise<void> {
  // One session by its hash; otherwise the user's: each hub drops them and reads the kept one again.
  await forgetSessions(env, db, "token_hash" in which ? { token_hash: which.token_hash } : { user_id });
  await closeSockets(env, db, user_id, which);
}

/**
 * The sockets close best-effort: the sessions are already dead in D1 (every API call and every
 * new upgrade under them is refused), so a failed close is logged, not the request's failure.
 */
async function closeSockets(env: Env, db: Db, user_id: number, which: EndedSessions): Promise<void> {
  try {
    const c = service_conversations;
    const conversations = await db.select({ id: c.id }).from(c).where(and(eq(c.user_id, user_id), isNull(c.merged_into_id)));
    await Promise.all([
      userChannel(env, user_id).closeSessions(which),
      ...conversations.map((row) => env.SERVICE_CONVERSATION.get(env.SERVICE_CONVERSATION.idFromName(String(row.id))).closeSessions(which)),
    ]);
  } catch (err) {
    logError("session.close_sockets_failed", { user_id, err });
  }
}
