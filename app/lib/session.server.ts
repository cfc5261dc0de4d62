/** Reading and writing the page session cookies (defined in worker/session-cookie.ts). */
import { localeCookie, operatorCookie, tokenFromCookie, userCookie } from "../../worker/session-cookie";

export { localeCookie };

type Kind = "user" | "operator";
const cookieOf = (kind: Kind) => (kind === "user" ? userCookie : operatorCookie);
const secure = (request: Request) => new URL(request.url).protocol === "https:";

export function readToken(request: Request, kind: Kind = "user"): Promise<string | null> {
  return tokenFromCookie(request.headers.get("cookie"), kind);
}

export function setTokenCookie(request: Request, token: string, kind: Kind = "user") {
  return cookieOf(kind).serialize(token, { secure: secure(request) });
}

export function clearTokenCookie(request: Request, kind: Kind = "user") {
  return cookieOf(kind).serialize("", { secure: secure(request), maxAge: 0 });
}

export function setLocaleCookie(request: Request, locale: string) {
  return localeCookie.serialize(locale, { secure: secure(request) });
}
