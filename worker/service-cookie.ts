import { createCookie } from "@remix-run/cloudflare";

/**
 * The guest's customer-service cookie: a random token naming their conversation (only its
 * SHA-256 is stored). httpOnly so scripts never see it; SameSite=Lax like the session cookie;
 * 30 days. Shared by the API (worker/api/resources/service.ts), the pages and the WebSocket
 * upgrade (worker/ws.ts).
 */
export const guestCookie = createCookie("pl_guest", { httpOnly: true, sameSite: "lax", path: "/", maxAge: 30 * 24 * 3600 });

export async function guestTokenFromCookie(header: string | null | undefined): Promise<string | null> {
  const value = await guestCookie.parse(header ?? null);
  return typeof value === "string" && value.length > 0 && value.length <= 100 ? value : null;
}
