import type { AppLoadContext } from "@remix-run/cloudflare";
import { api } from "../../lib/api.server";

/**
 * The `intent=upload` half of a recharge page's action: forwards the picked picture as the
 * multipart field `file` to /api/common/upload, which answers `data.url` ("/files/<id>").
 */
export async function forwardUpload(context: AppLoadContext, request: Request, form: FormData) {
  const file = form.get("file");
  const body = new FormData();
  if (file instanceof File) body.append("file", file, file.name || "screenshot");
  return api<{ id: string; url: string; width: number; height: number }>(context, request, "/api/common/upload", body);
}
