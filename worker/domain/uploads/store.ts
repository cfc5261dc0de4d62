import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { uploads } from "../../db/schema";
import { sniffImage, type SniffResult } from "./sniff";

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
): Promise<{ status: "ok"; upload: Upload } | { status: Exclude<SniffResult["status"], "ok"> }> {
  const sniffed = sniffImage(bytes);
  if (sniffed.status !== "ok") return sniffed;
  const id = crypto.randomUUID().replace(/-/g, "");
  const r2_key = `uploads/${user_id}/${id}.${sniffed.image.ext}`;
  await bucket.put(r2_key, bytes, { httpMetadata: { contentType: sniffed.image.type } });
  const [upload] = await db
    .insert(uploads)
    .values({ id, user_id, r2_key, content_type: sniffed.image.type, size_bytes: bytes.byteLength, width: sniffed.image.width, height: sniffed.image.height, created_at_ms: now_ms })
    .returning();
  return { status: "ok", upload };
}

export async function findUpload(db: Db, id: string): Promise<Upload | undefined> {
  if (!/^[0-9a-f]{32}$/.test(id)) return undefined;
  return db.query.uploads.findFirst({ where: eq(uploads.id, id) });
}
