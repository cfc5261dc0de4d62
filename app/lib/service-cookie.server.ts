/**
 * The guest's customer-service cookie `pl_guest` (docs/customer-service.md): httpOnly, so
 * scripts never see it, SameSite=Lax, 30 days. Its value is the raw token the API issued (the
 * API and the WebSocket upgrade read the same cookie), so it is written and read as is.
 */
const NAME = "pl_guest";
const MAX_AGE_S = 30 * 24 * 3600;
const TOKEN = /^[A-Za-z0-9_-]{16,128}$/;

export function readGuestToken(request: Request): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name !== NAME) continue;
    const value = rest.join("=");
    return TOKEN.test(value) ? value : null;
  }
  return null;
}

function attributes(request: Request, max_age_s: number): string {
  const secure = new URL(request.url).protocol === "https:" ? "; Secure" : "";
  return `Path=/; Max-Age=${max_age_s}; HttpOnly; SameSite=Lax${secure}`;
}

export function setGuestCookie(request: Request, token: string): string {
  return `${NAME}=${token}; ${attributes(request, MAX_AGE_S)}`;
}

/** After sign-in the token reads nothing any more; the page drops it. */
export function clearGuestCookie(request: Request): string {
  return `${NAME}=; ${attributes(request, 0)}`;
}
