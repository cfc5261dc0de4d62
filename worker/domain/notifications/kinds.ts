import { NOTIFICATION_KINDS } from "../../db/schema/notifications";

export { NOTIFICATION_KINDS };
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** What the words of a notification may use: ids, counts, micro-unit amounts as strings, short names. */
export type NotificationParams = Record<string, string | number>;
