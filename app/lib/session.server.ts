import { createCookie } from "@remix-run/cloudflare";

/**
 * Pages keep the session token in an httpOnly cookie (never readable by scripts). SameSite=Lax
 * stops other sites from posting to our actions with it. Secure whenever served over https.
 */
const userCookie = createCookie("pl_session", { httpOnly: true, sameSite: "lax", path: "/", maxAge: 30 * 24 * 3600 });
// Path "/" (not "/admin"): single-fetch data requests go to "/admin.data", which a
// "/admin" cookie path would not match.
const operatorCookie = createCookie("pl_operator", { httpOnly: true, sameSite: "strict", path: "/", maxAge: 12 * 3600 });
export const localeCookie = createCookie("lng", { sameSite: "lax", path: "/", maxAge: 365 * 24 * 3600 });

type Kind = "user" | "operator";
const cookieOf = (kind: Kind) => (kind === "user" ? userCookie : operatorCookie);
const secure = (request: Request) => new URL(request.url).protocol === "https:";

export async function readToken(request: Request, kind: Kind = "user"): Promise<string | null> {
  const value = await cookieOf(kind).parse(request.headers.get("cookie"));
  return typeof value === "string" && value.length <= 100 ? value : null;
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
