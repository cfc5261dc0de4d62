/**
 * What every page answer carries against the web's usual attacks, and the one check page
 * requests pass before Remix sees them. Decision 087.
 */
import { base64 } from "@scure/base";
import { isLocalRun } from "./app-env";
import { readBounded } from "./body";
import { MAX_UPLOAD_BYTES } from "./domain/uploads/sniff";

/** 128 random bits, base64: a fresh script nonce for one page answer. */
export function newNonce(): string {
  return base64.encode(crypto.getRandomValues(new Uint8Array(16)));
}

/**
 * The page's Content-Security-Policy: scripts only from this origin or carrying this answer's
 * nonce (the hash-route script, Remix's hydration data), nothing framing us, no plugins, forms
 * and base URLs only to ourselves, sockets only to our own host. Styles allow inline attributes:
 * React renders `style=""` on the server, and a style cannot run code.
 */
export function contentSecurityPolicy(nonce: string, url: URL): string {
  const sockets = `${url.protocol === "https:" ? "wss" : "ws"}://${url.host}`;
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${sockets}`,
    "worker-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The headers every page answer gets (HSTS only over https, where it means something). */
export function pageSecurityHeaders(headers: Headers, nonce: string, url: URL) {
  headers.set("Content-Security-Policy", contentSecurityPolicy(nonce, url));
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "same-origin");
  headers.set("X-Frame-Options", "DENY");
  if (url.protocol === "https:") headers.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
}

/**
 * Page actions (every non-GET page request) must come from our own pages: a browser says where
 * a request comes from in `Origin` (and `Sec-Fetch-Site`), and another site's form posting to
 * our sign-in or money actions is refused before Remix runs it (login CSRF and the like). A
 * request that names no origin at all is no browser's cross-site form, so it passes.
 */
export function crossSitePageWrite(request: Request): boolean {
  if (request.method === "GET" || request.method === "HEAD") return false;
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== new URL(request.url).origin) return true;
  return request.headers.get("sec-fetch-site") === "cross-site";
}

/** The largest page request body: one picture and its multipart framing (pages upload through actions). */
export const PAGE_BODY_MAX_BYTES = MAX_UPLOAD_BYTES + 16 * 1024;

/**
 * A page request with its body read before Remix parses it, or null when the body is over
 * PAGE_BODY_MAX_BYTES (answered 413 without parsing anything).
 */
export async function boundedPageRequest(request: Request): Promise<Request | null> {
  if (request.method === "GET" || request.method === "HEAD" || !request.body) return request;
  const bytes = await readBounded(request, PAGE_BODY_MAX_BYTES);
  return bytes === null ? null : new Request(request, { body: bytes });
}

/**
 * Every cookie we set is Secure whenever the request came over https, and always in
 * production (APP_ENV "production"), whoever set it: pages, the API or the guest chat. One rule
 * here instead of one per cookie. Socket upgrades (101) carry no cookies and pass untouched.
 */
export function withSecureCookies(response: Response, request: Request, env: { APP_ENV: string }): Response {
  // A request's URL is absolute with its scheme in lower case: no URL object per answer.
  if (response.status === 101 || (!request.url.startsWith("https:") && isLocalRun(env))) return response;
  const cookies = response.headers.getSetCookie();
  if (cookies.every((c) => /;\s*secure\b/i.test(c))) return response;
  const out = new Response(response.body, response);
  out.headers.delete("set-cookie");
  for (const c of cookies) out.headers.append("set-cookie", /;\s*secure\b/i.test(c) ? c : `${c}; Secure`);
  return out;
}
