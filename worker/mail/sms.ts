/**
 * SMS, behind one interface (decision 139). No provider is wired yet: outside production the
 * local outbox stands in (every SMS is kept where the dev mailbox and the tests read it); in
 * production `smsSenderOf` answers null and phone verification says SMS is unavailable.
 * docs/recovery.md says how to add a provider: implement `SmsSender`, return it here.
 */
import type { Db } from "../db/client";
import { keepInOutbox, keepsOutbox } from "./outbox";

export interface SmsSender {
  /** Sends `text` to `to` (E.164). Throws when the provider refuses. */
  send(to: string, text: string): Promise<void>;
}

/** The outbox as a sender: what it "sends" only the outbox holds. */
function outboxSender(db: Db, env: { APP_ENV?: string }, now_ms: number): SmsSender {
  return {
    async send(to, text) {
      await keepInOutbox(db, env, { channel: "sms", to, subject: "", text }, now_ms);
    },
  };
}

/** The sender of this deployment, or null: production without a provider sends no SMS. */
export function smsSenderOf(env: { APP_ENV?: string }, db: Db, now_ms: number): SmsSender | null {
  if (keepsOutbox(env)) return outboxSender(db, env, now_ms);
  return null;
}
