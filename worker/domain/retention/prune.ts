/**
 * The pruning job (decision 132, docs/ops/retention.md): ended sessions, old sign-in history, old
 * notifications, orphaned uploads, expired one-time codes and the local outbox's old mail, past the keep times of policy.ts. Bounded per run (see
 * PRUNE_BATCH): a large backlog goes over several runs, never one invocation past D1's limits.
 * Nothing here touches money, the log or the audit log.
 */
import { sql } from "drizzle-orm";
import { getDb, type Db } from "../../db/client";
import { app_config } from "../../db/schema";
import { PRUNE_BATCH, PRUNE_MINUTE, RETENTION } from "./policy";

export type PruneResult = {
  sessions: number;
  login_attempts: number;
  notifications: number;
  /** `uploads` rows nothing refers to, removed with their objects. */
  uploads: number;
  /** Objects of the uploads bucket that no `uploads` row names. */
  orphan_objects: number;
  /** One-time codes long expired, and the local outbox's old mail. */
  codes: number;
  outbox: number;
};

/** Where the walk over the uploads bucket stopped (an R2 list cursor), so each run goes on from it. */
export const OBJECTS_CURSOR_KEY = "retention.uploads_cursor";

type PruneEnv = { DB: D1Database; UPLOADS: R2Bucket };

export async function pruneExpired(env: PruneEnv, now_ms: number): Promise<PruneResult> {
  const db = getDb(env.DB);
  return {
    sessions: await pruneSessions(db, now_ms),
    login_attempts: await deleteLimited(db, "login_attempts", "id", sql`at_ms < ${now_ms - RETENTION.login_attempt_ms}`),
    notifications: await deleteLimited(
      db,
      "notifications",
      "id",
      sql`(read_at_ms IS NOT NULL AND created_at_ms < ${now_ms - RETENTION.notification_read_ms}) OR created_at_ms < ${now_ms - RETENTION.notification_any_ms}`,
    ),
    uploads: await pruneUnreferencedUploads(db, env.UPLOADS, now_ms),
    orphan_objects: await pruneOrphanObjects(db, env.UPLOADS, now_ms),
    codes: await deleteLimited(db, "one_time_codes", "rowid", sql`expires_at_ms < ${now_ms - RETENTION.code_after_expiry_ms}`),
    outbox: await deleteLimited(db, "dev_outbox", "id", sql`created_at_ms < ${now_ms - RETENTION.dev_outbox_ms}`),
  };
}

/** The cron's call: once an hour (the job scans tables a minute's run need not). */
export async function pruneIfDue(env: PruneEnv, now_ms: number): Promise<PruneResult | null> {
  if (Math.floor(now_ms / 60_000) % 60 !== PRUNE_MINUTE) return null;
  return pruneExpired(env, now_ms);
}

/** A session ended (revoked, idle past its timeout, or past its absolute expiry) longer ago than the keep time. */
async function pruneSessions(db: Db, now_ms: number): Promise<number> {
  const cutoff = now_ms - RETENTION.session_after_end_ms;
  return deleteLimited(db, "sessions", "token_hash", sql`(revoked_at_ms IS NOT NULL AND revoked_at_ms < ${cutoff}) OR MIN(absolute_expires_at_ms, last_seen_at_ms + idle_timeout_ms) < ${cutoff}`);
}

/** One statement: up to PRUNE_BATCH.rows rows of `table` matching `where`, by their key. */
async function deleteLimited(db: Db, table: string, key: string, where: ReturnType<typeof sql>): Promise<number> {
  const r = await db.run(sql`DELETE FROM ${sql.identifier(table)} WHERE ${sql.identifier(key)} IN (SELECT ${sql.identifier(key)} FROM ${sql.identifier(table)} WHERE ${where} LIMIT ${PRUNE_BATCH.rows})`);
  return r.meta.changes ?? 0;
}

/**
 * Every place an upload id is kept. A new column that refers to uploads must be added here, or
 * its files would be pruned a week after upload: tests/api/retention.test.ts lists them.
 */
export const UPLOAD_REFERENCES = sql`
  EXISTS (SELECT 1 FROM deposits d WHERE d.image_id = u.id)
  OR EXISTS (SELECT 1 FROM profiles p WHERE p.id_photo_id = u.id OR p.signature_id = u.id)
  OR EXISTS (SELECT 1 FROM service_messages m WHERE m.upload_id = u.id)
  OR EXISTS (SELECT 1 FROM service_uploads s WHERE s.upload_id = u.id)
  OR EXISTS (SELECT 1 FROM slides b WHERE instr(b.image_url, u.id) > 0)`;

/**
 * Uploads older than the grace period that nothing refers to: a form abandoned after its picture
 * was sent, a profile's earlier ID photo replaced by a corrected one. The rows go first, in one
 * statement that checks the references again (a deposit sent with one meanwhile keeps it), then
 * the objects of the rows it removed; an object whose delete fails is left to the orphan walk.
 */
async function pruneUnreferencedUploads(db: Db, bucket: R2Bucket, now_ms: number): Promise<number> {
  const gone = await db.all<{ r2_key: string }>(
    sql`DELETE FROM uploads WHERE id IN (SELECT u.id FROM uploads u WHERE u.created_at_ms < ${now_ms - RETENTION.orphan_upload_ms} AND NOT (${UPLOAD_REFERENCES}) LIMIT ${PRUNE_BATCH.uploads}) RETURNING r2_key`,
  );
  if (gone.length) await bucket.delete(gone.map((r) => r.r2_key));
  return gone.length;
}

/**
 * Objects under `uploads/` that no row names, older than the grace period (a row is written
 * before its object, and removed if the object write fails; an erasure or a restore of D1 can
 * still leave objects behind). One page of the bucket a run, from where the last run stopped.
 */
async function pruneOrphanObjects(db: Db, bucket: R2Bucket, now_ms: number): Promise<number> {
  const saved = await db.all<{ value: string }>(sql`SELECT value FROM app_config WHERE key = ${OBJECTS_CURSOR_KEY}`);
  const cursor = saved[0]?.value || undefined;
  const page = await bucket.list({ prefix: "uploads/", limit: PRUNE_BATCH.objects, cursor });
  const old = page.objects.filter((o) => o.uploaded.getTime() < now_ms - RETENTION.orphan_upload_ms).map((o) => o.key);
  const named = new Set<string>();
  for (let i = 0; i < old.length; i += 90) {
    const chunk = old.slice(i, i + 90);
    for (const r of await db.all<{ r2_key: string }>(sql`SELECT r2_key FROM uploads WHERE r2_key IN (${sql.join(chunk.map((k) => sql`${k}`), sql`, `)})`)) named.add(r.r2_key);
  }
  const orphans = old.filter((k) => !named.has(k));
  if (orphans.length) await bucket.delete(orphans);
  const next = page.truncated ? page.cursor : "";
  await db
    .insert(app_config)
    .values({ key: OBJECTS_CURSOR_KEY, value: next, updated_at_ms: now_ms })
    .onConflictDoUpdate({ target: app_config.key, set: { value: next, updated_at_ms: now_ms } });
  return orphans.length;
}
