import { guestCookie, guestTokenFromCookie } from "../../worker/service-cookie";

/**
 * The guest's customer-service cookie `pl_guest` (docs/customer-service.md): httpOnly, so
 * scripts never see it, SameSite=Lax, path /, 30 days. The same cookie object the API and the
 * WebSocket upgrade read (worker/service-cookie.ts).
 */


export function readGuestToken(request: Request): Promise<string | null> {
  return guestTokenFromCookie(request.headers.get("cookie"));
}

export function setGuestCookie(request: Request, token: string): Promise<string> {
  return guestCookie.serialize(token);
}

/** After sign-in the token reads nothing any more; the page drops it. */
export function clearGuestCookie(request: Request): Promise<string> {
  return guestCookie.serialize("", { maxAge: 0 });
}
