import { getDb } from "./db/client";
import { resolveSession, resolveSessionWith } from "./domain/identity/session";
import { findUpload } from "./domain/uploads/store";
import type { Env } from "./env";
import { tokenFromCookie } from "./session-cookie";

/**
 * `/files/<id>`: an uploaded image, only for its owner (user session cookie) or an operator
 * (operator cookie, while the operator is enabled: a disabled operator keeps no access, as in
 * the console). Everyone else gets the same 404, so ids cannot be probed. Served with the
 * type we sniffed, `nosniff` and a sandboxing CSP, so the bytes can never run as a page.
 */
export async function serveFile(request: Request, env: Env): Promise<Response> {
  const id = new URL(request.url).pathname.slice("/files/".length);
  const db = getDb(env.DB);
  const upload = await findUpload(db, id);
  if (!upload) return notFound();
  const now_ms = Date.now();
  const cookie = request.headers.get("cookie");
  const operator = await resolveSessionWith(db, "operator", await tokenFromCookie(cookie, "operator"), now_ms);
  const isOperator = operator.status === "ok" && operator.subject?.enabled === 1;
  const user = isOperator ? null : await resolveSession(db, "user", await tokenFromCookie(cookie, "user"), now_ms);
  const allowed = isOperator || (user?.status === "ok" && user.subject_id === upload.user_id);
  if (!allowed) return notFound();
  const object = await env.UPLOADS.get(upload.r2_key);
  if (!object) return notFound();
  return new Response(object.body, {
    headers: {
      "content-type": upload.content_type,
      "content-length": String(upload.size_bytes),
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
      "content-disposition": "inline",
      "cache-control": "private, max-age=3600",
      "cross-origin-resource-policy": "same-origin",
    },
  });
}

function notFound() {
  return new Response("Not found", { status: 404, headers: { "content-type": "text/plain", "x-content-type-options": "nosniff" } });
}
