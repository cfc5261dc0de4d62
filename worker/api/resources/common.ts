/** `/api/common/*`: image upload. */
import { Hono } from "hono";
import { MAX_UPLOAD_BYTES } from "../../domain/uploads/sniff";
import { storeUpload } from "../../domain/uploads/store";
import { uploadQuotaParams } from "../../domain/uploads/quota";
import { requireUser } from "../middleware/auth";
import type { BodyLimit } from "../middleware/input";
import { ApiError, ok } from "../envelope";
import type { AppEnv } from "../types";

/** One image plus multipart framing; the body is cut off beyond this before it is buffered. */
export const UPLOAD_BODY_LIMIT: BodyLimit = { bytes: MAX_UPLOAD_BYTES + 16 * 1024, too_large_key: "errors.upload_too_large" };

export const commonApi = new Hono<AppEnv>().use("*", requireUser).post("/upload", async (c) => {
  const file = c.get("input").file;
  if (!(file instanceof File)) throw new ApiError("errors.upload_missing");
  if (file.size > MAX_UPLOAD_BYTES) throw new ApiError("errors.upload_too_large", 413);
  const r = await storeUpload(c.get("db"), c.env.UPLOADS, c.get("user").id, new Uint8Array(await file.arrayBuffer()), Date.now());
  if (r.status === "too_large") throw new ApiError("errors.upload_too_large", 413);
  if (r.status === "empty") throw new ApiError("errors.upload_empty");
  if (r.status === "quota") throw new ApiError("errors.upload_quota", 429, uploadQuotaParams());
  if (r.status !== "ok") throw new ApiError("errors.upload_not_image", 415);
  return ok(c, { id: r.upload.id, url: `/files/${r.upload.id}`, width: r.upload.width, height: r.upload.height }, "errors.uploaded");
});
