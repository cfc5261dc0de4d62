/**
 * How long each kind of data is kept (docs/ops/retention.md says why, decision 132). Only what
 * the pruning job removes has a number here; everything else is kept for as long as the account
 * and the books are (the ledger, the log, the audit log: never pruned).
 */
const DAY_MS = 24 * 3600_000;

export const RETENTION = {
  /** An ended session (revoked, idle past its timeout, or past its absolute expiry), after it ended. */
  session_after_end_ms: 30 * DAY_MS,
  /** Sign-in history (`login_attempts`): what the devices page and an incident review read. */
  login_attempt_ms: 180 * DAY_MS,
  /** A notification the user has read. */
  notification_read_ms: 90 * DAY_MS,
  /** Any notification, read or not. */
  notification_any_ms: 365 * DAY_MS,
  /**
   * An upload nothing refers to (no deposit, profile, chat message or banner), or an object in the
   * uploads bucket no `uploads` row names: the form that uploaded it had this long to be sent.
   */
  orphan_upload_ms: 7 * DAY_MS,
  /** A one-time code (decision 138), an hour past its expiry: it proves nothing any more. */
  code_after_expiry_ms: 3600_000,
  /** The local outbox of mail and SMS (decision 139; never written in production). */
  dev_outbox_ms: 7 * DAY_MS,
} as const;

/**
 * Work per run, inside D1's limits for one invocation (1,000 queries, 100 bound parameters a
 * query): a run makes fewer than 20 queries, none with more than 90 parameters, and deletes at
 * most this many rows of each kind. What is left is taken by the next run.
 */
export const PRUNE_BATCH = {
  rows: 500,
  uploads: 90,
  /** Objects of the uploads bucket listed per run (one R2 list call), checked 90 keys a query. */
  objects: 450,
} as const;

/** The cron runs every minute; the pruning job once an hour, at this minute. */
export const PRUNE_MINUTE = 17;
