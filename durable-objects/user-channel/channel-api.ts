/**
 * What the Worker and the other objects may ask a user's channel (its RPC surface), apart from
 * the class that serves it: `worker/env.ts` types the USER_CHANNEL binding with this, so the
 * binding never imports the Durable Object and the arrows run one way.
 */
import { logError } from "../../worker/observability/log";
import type { EndedSessions } from "../page-socket-api";
import type { ServerMessage } from "../protocol";

export interface UserChannelApi extends Rpc.DurableObjectBranded {
  /** Something changed for this user: every open page hears it. Answers how many pages got it. */
  publish(message: ServerMessage): Promise<number>;
  /** Several notices in one call (a settlement tells each owner an order result and a balance). */
  publishAll(messages: ServerMessage[]): Promise<number>;
  /** Some of the user's sessions ended: their pages' sockets close (decision 119). Answers how many. */
  closeSessions(which: EndedSessions): Promise<number>;
}

type ChannelEnv = { USER_CHANNEL: DurableObjectNamespace<UserChannelApi> };

/** The user's channel: one object per user, named by the user's id. */
export function userChannel(env: ChannelEnv, user_id: number) {
  return env.USER_CHANNEL.get(env.USER_CHANNEL.idFromName(String(user_id)));
}

/** Tells the user's open pages that something changed. Never fails the caller's operation. */
export async function notifyUser(env: ChannelEnv, user_id: number, message: ServerMessage): Promise<void> {
  try {
    await userChannel(env, user_id).publish(message);
  } catch (err) {
    logError("channel.notify_failed", { user_id, err });
  }
}
