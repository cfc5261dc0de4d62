import { getDb } from "./db/client";
import { actingOperator } from "./domain/identity/operators";
import { resolveSession } from "./domain/identity/session";
import { findConversation, hashGuestToken, isMember, type Visitor } from "./domain/service/conversations";
import type { Env } from "./env";
import { guestTokenFromCookie } from "./service-cookie";
import { tokenFromCookie } from "./session-cookie";
import { socketRefusal as json } from "../durable-objects/page-socket-api";
import { setSessionHeader } from "../durable-objects/page-socket-api";
import { CONVERSATION_HEADER, GUEST_HEADER, LOCALE_HEADER, OPERATOR_HEADER, OPERATOR_NAME_HEADER, SIDE_HEADER } from "../durable-objects/service/conversation-api";
import { DEFAULT_LOCALE, localeFromAcceptLanguage, localeFromLang } from "../locales/languages";

/**
 * Customer-service upgrades (origin already checked by worker/ws.ts):
 * - `/ws/service/inbox`: the operators' inbox, operator cookie only.
 * - `/ws/service/<id>`: the conversation's visitor (its user's session cookie, or the guest's
 *   `pl_guest` cookie) or, with `?as=operator`, an operator. Anyone else: 404, like the API.
 * The object learns who the socket is (side; an operator's id and account, since messages sent
 * over the socket record them) and its language (`lang` in the URL, else Accept-Language) from
 * headers only this function sets (the client's are replaced).
 */
export async function serviceSocket(request: Request, env: Env, url: URL): Promise<Response> {
  const db = getDb(env.DB);
  const cookie = request.headers.get("cookie");
  const rest = url.pathname.slice("/ws/service/".length);
  const asOperator = rest === "inbox" || url.searchParams.get("as") === "operator";
  const operator = asOperator ? await operatorOf(db, cookie) : null;
  if (asOperator && !operator) return json(request, 401, "errors.operator_required");
  if (rest === "inbox") return env.SERVICE_INBOX.get(env.SERVICE_INBOX.idFromName("inbox")).fetch(request);
  if (!/^\d{1,15}$/.test(rest)) return json(request, 404, "errors.not_found");
  const conversation = await findConversation(db, Number(rest));
  if (!conversation || conversation.merged_into_id !== null) return json(request, 404, "errors.not_found");
  const signedIn = asOperator ? null : await visitorFromCookies(db, cookie);
  const visitor = signedIn?.visitor ?? null;
  if (!asOperator && (!visitor || !isMember(conversation, visitor))) return json(request, 404, "errors.not_found");
  // A signed-in visitor's socket closes when its session ends (decision 119).
  const headers = new Headers(request.headers);
  setSessionHeader(headers, signedIn?.token_hash ?? null);
  headers.set(SIDE_HEADER, asOperator ? "operator" : "visitor");
  headers.set(CONVERSATION_HEADER, String(conversation.id));
  headers.set(GUEST_HEADER, visitor?.kind === "guest" ? "1" : "0");
  headers.set(OPERATOR_HEADER, operator ? String(operator.id) : "");
  headers.set(OPERATOR_NAME_HEADER, operator?.account ?? "");
  headers.set(LOCALE_HEADER, localeFromLang(url.searchParams.get("lang")) ?? localeFromAcceptLanguage(request.headers.get("accept-language")) ?? DEFAULT_LOCALE);
  const stub = env.SERVICE_CONVERSATION.get(env.SERVICE_CONVERSATION.idFromName(String(conversation.id)));
  return stub.fetch(new Request(request, { headers }));
}

/** The enabled operator the cookie's session belongs to, if any. */
async function operatorOf(db: ReturnType<typeof getDb>, cookie: string | null): Promise<{ id: number; account: string } | null> {
  const session = await resolveSession(db, "operator", { token: await tokenFromCookie(cookie, "operator") }, Date.now());
  const operator = actingOperator(session);
  return operator ? { id: operator.id, account: operator.account } : null;
}

/** The user's session cookie first (with its session), then the guest cookie. */
async function visitorFromCookies(db: ReturnType<typeof getDb>, cookie: string | null): Promise<{ visitor: Visitor; token_hash: string | null } | null> {
  const session = await resolveSession(db, "user", { token: await tokenFromCookie(cookie, "user") }, Date.now());
  if (session.status === "ok" && session.subject) return { visitor: { kind: "user", user_id: session.subject.id }, token_hash: session.token_hash };
  const guest = await guestTokenFromCookie(cookie);
  return guest ? { visitor: { kind: "guest", token_hash: hashGuestToken(guest) }, token_hash: null } : null;
}
