import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { uploads } from "../../db/schema";
import { sniffImage, type SniffResult } from "./sniff";
import { UPLOAD_QUOTA } from "./quota";

export type Upload = typeof uploads.$inferSelect;

/**
 * Stores an image the user uploaded: only after its bytes proved it is a JPEG, PNG or WebP.
 * The key is ours (never the file name), and the object is private: it is served only through
 * `/files/<id>` to its owner and to operators.
 */
export async function storeUpload(
  db: Db,
  bucket: R2Bucket,
  user_id: number,
  bytes: Uint8Array,
  now_ms: number,
): Promise<{ status: "ok"; upload: Upload } | { status: Exclude<SniffResult["status"], "ok"> | "quota" }> {
  const sniffed = sniffImage(bytes);
  if (sniffed.status !== "ok") return sniffed;
  const id = crypto.randomUUID().replace(/-/g, "");
  const r2_key = `uploads/${user_id}/${id}.${sniffed.image.ext}`;
  const row = { id, user_id, r2_key, content_type: sniffed.image.type, size_bytes: bytes.byteLength, width: sniffed.image.width, height: sniffed.image.height, created_at_ms: now_ms };
  // The row first, in one statement that counts the user's last 24 hours: two uploads at once
  // cannot both take the last place. (Guests and operators upload as 0: guests are counted per
  // conversation by the chat, operators are not limited.)
  const since_ms = now_ms - UPLOAD_QUOTA.window_ms;
  const quota =
    user_id > 0
      ? sql` WHERE (SELECT COUNT(*) FROM uploads WHERE user_id = ${user_id} AND created_at_ms > ${since_ms}) < ${UPLOAD_QUOTA.files}
          AND (SELECT COALESCE(SUM(size_bytes), 0) FROM uploads WHERE user_id = ${user_id} AND created_at_ms > ${since_ms}) + ${row.size_bytes} <= ${UPLOAD_QUOTA.bytes}`
      : sql``;
  const inserted = await db.run(sql`INSERT INTO uploads (id, user_id, r2_key, content_type, size_bytes, width, height, created_at_ms)
    SELECT ${row.id}, ${row.user_id}, ${row.r2_key}, ${row.content_type}, ${row.size_bytes}, ${row.width}, ${row.height}, ${row.created_at_ms}${quota}`);
  if (inserted.meta.changes === 0) return { status: "quota" };
  try {
    await bucket.put(r2_key, bytes, { httpMetadata: { contentType: sniffed.image.type } });
  } catch (err) {
    // No row may point at an object that is not there.
    await db.delete(uploads).where(eq(uploads.id, id));
    throw err;
  }
  return { status: "ok", upload: row };
}

export async function findUpload(db: Db, id: string): Promise<Upload | undefined> {
  if (!/^[0-9a-f]{32}$/.test(id)) return undefined;
  return db.query.uploads.findFirst({ where: eq(uploads.id, id) });
}
