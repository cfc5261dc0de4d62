import type { SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { notifications } from "../../db/schema";
import type { NotificationKind, NotificationParams } from "./kinds";

export type NewNotification = {
  /** A number, or a subquery when the user is created in the same batch. */
  user_id: number | SQL;
  kind: NotificationKind;
  params: NotificationParams;
  /** Names the event, e.g. `deposit:42:credited`: the same event never notifies twice. */
  dedupe_key: string;
  now_ms: number;
};

/**
 * The insert for one notification, to run inside the batch that makes the event happen, so
 * the notice and the event commit together or not at all. A replay of the same event
 * (same user and dedupe key) inserts nothing.
 */
export function notificationInsert(db: Db, input: NewNotification) {
  return db
    .insert(notifications)
    .values({
      user_id: input.user_id as number,
      kind: input.kind,
      params_json: JSON.stringify(input.params),
      dedupe_key: input.dedupe_key,
      created_at_ms: input.now_ms,
    })
    .onConflictDoNothing();
}
