import { getDb, type Db } from "./db/client";
import { findConversation, hashGuestToken, isMember } from "./domain/service/conversations";
import { conversationOfUpload } from "./domain/service/messages";
import { guestTokenFromCookie } from "./service-cookie";
import { actingOperator } from "./domain/identity/operators";
import { resolveSession } from "./domain/identity/session";
import { findUpload } from "./domain/uploads/store";
import type { Env } from "./env";
import { tokenFromCookie } from "./session-cookie";

/**
 * `/files/<id>`: an uploaded image, only for its owner (user session cookie), the members of the
 * customer-service conversation it was sent in, or an operator
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
  const operator = await resolveSession(db, "operator", { token: await tokenFromCookie(cookie, "operator") }, now_ms);
  const isOperator = actingOperator(operator) !== null;
  const user = isOperator ? null : await resolveSession(db, "user", { token: await tokenFromCookie(cookie, "user") }, now_ms);
  const allowed = isOperator || (user?.status === "ok" && user.subject_id === upload.user_id) || (await chatMember(db, id, user?.status === "ok" ? user.subject_id : null, cookie));
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

/**
 * A customer-service picture is also for the members of its conversation: its user, or the
 * guest whose cookie owns it (operators are allowed above).
 */
async function chatMember(db: Db, upload_id: string, user_id: number | null, cookie: string | null): Promise<boolean> {
  const conversation_id = await conversationOfUpload(db, upload_id);
  if (conversation_id === null) return false;
  const conversation = await findConversation(db, conversation_id);
  if (!conversation) return false;
  if (user_id !== null && isMember(conversation, { kind: "user", user_id })) return true;
  const guest = await guestTokenFromCookie(cookie);
  return guest !== null && isMember(conversation, { kind: "guest", token_hash: hashGuestToken(guest) });
}

function notFound() {
  return new Response("Not found", { status: 404, headers: { "content-type": "text/plain", "x-content-type-options": "nosniff" } });
}
