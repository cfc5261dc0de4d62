import { createCookie } from "@remix-run/cloudflare";

/**
 * The guest's customer-service cookie `pl_guest` (docs/customer-service.md): httpOnly, so
 * scripts never see it, SameSite=Lax, path /, 30 days. Encoded exactly as the API and the
 * WebSocket upgrade read it (a Remix cookie, like the session cookie).
 */
const guestCookie = createCookie("pl_guest", { httpOnly: true, sameSite: "lax", path: "/", maxAge: 30 * 24 * 3600 });

const secure = (request: Request) => new URL(request.url).protocol === "https:";

export async function readGuestToken(request: Request): Promise<string | null> {
  const value = await guestCookie.parse(request.headers.get("cookie"));
  return typeof value === "string" && value.length > 0 && value.length <= 100 ? value : null;
}

export function setGuestCookie(request: Request, token: string): Promise<string> {
  return guestCookie.serialize(token, { secure: secure(request) });
}

/** After sign-in the token reads nothing any more; the page drops it. */
export function clearGuestCookie(request: Request): Promise<string> {
  return guestCookie.serialize("", { secure: secure(request), maxAge: 0 });
}
