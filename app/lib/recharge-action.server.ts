import type { AppLoadContext } from "@remix-run/cloudflare";
import { api } from "./api.server";

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

/**
 * A recharge page's whole action: `intent=upload` forwards the screenshot; anything else
 * reports the recharge of `kind` with the page's `fields` (and the form's request key).
 */
export async function rechargeAction(context: AppLoadContext, request: Request, kind: "crypto" | "bank", fields: readonly string[]) {
  const form = await request.formData();
  if (form.get("intent") === "upload") return forwardUpload(context, request, form);
  const body: Record<string, string> = { kind };
  for (const name of [...fields, "amount", "image", "request_key"]) body[name] = String(form.get(name) ?? "");
  return api(context, request, "/api/user/recharge", body);
}
