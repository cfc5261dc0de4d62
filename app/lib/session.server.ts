/** Reading and writing the page session cookies (defined in worker/session-cookie.ts). */
import { localeCookie, operatorCookie, tokenFromCookie, userCookie } from "../../worker/session-cookie";

export { localeCookie };

type Kind = "user" | "operator";
const cookieOf = (kind: Kind) => (kind === "user" ? userCookie : operatorCookie);

export function readToken(request: Request, kind: Kind = "user"): Promise<string | null> {
  return tokenFromCookie(request.headers.get("cookie"), kind);
}

export function setTokenCookie(request: Request, token: string, kind: Kind = "user") {
  return cookieOf(kind).serialize(token);
}

export function clearTokenCookie(request: Request, kind: Kind = "user") {
  return cookieOf(kind).serialize("", { maxAge: 0 });
}

export function setLocaleCookie(request: Request, locale: string) {
  return localeCookie.serialize(locale);
}
