import { createCookie } from "@remix-run/cloudflare";

/**
 * The session cookies, shared by the pages (app/lib/session.server.ts) and the WebSocket
 * upgrade (worker/ws.ts), which is authenticated by the same cookie. httpOnly: scripts never
 * see the token. SameSite=Lax stops other sites from posting to our actions with it.
 */
export const userCookie = createCookie("pl_session", { httpOnly: true, sameSite: "lax", path: "/", maxAge: 30 * 24 * 3600 });
// Path "/" (not "/admin"): single-fetch data requests go to "/admin.data", which a
// "/admin" cookie path would not match.
export const operatorCookie = createCookie("pl_operator", { httpOnly: true, sameSite: "strict", path: "/", maxAge: 12 * 3600 });
export const localeCookie = createCookie("lng", { sameSite: "lax", path: "/", maxAge: 365 * 24 * 3600 });

export async function tokenFromCookie(header: string | null, kind: "user" | "operator" = "user"): Promise<string | null> {
  const value = await (kind === "user" ? userCookie : operatorCookie).parse(header);
  return typeof value === "string" && value.length <= 100 ? value : null;
}
