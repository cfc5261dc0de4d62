/**
 * The product's login guard: login, register, forgot password, customer service, the public transparency log
 * (/proof: anyone may check it) and any path containing "register" are open; every other page
 * needs a signed-in user. The operator
 * console (/admin) has its own guard.
 */
const OPEN_PAGES = new Set(["/pages/user/login", "/pages/user/login2", "/pages/user/register", "/pages/user/forgot", "/pages/me/sub/service", "/proof"]);

export function needsLogin(pathname: string): boolean {
  const path = pathname.replace(/\/+$/, "") || "/";
  if (OPEN_PAGES.has(path)) return false;
  if (path.includes("register")) return false;
  if (path === "/admin" || path.startsWith("/admin/")) return false;
  return true;
}

export function loginUrl(target: string): string {
  return `/pages/user/login?path=${encodeURIComponent(target)}`;
}

/**
 * Where to go after login: only a same-site path (never "//host" or "/\host", which browsers
 * treat as another site), defaulting to the wallet home.
 */
export function safeReturnPath(path: string | null | undefined): string {
  if (!path || path.length > 1000 || !path.startsWith("/")) return "/";
  // URL parsing drops tabs and newlines and reads "\\" as "/", so "/\t/evil" or "/\\evil"
  // would leave the site: refuse control characters, whitespace and backslashes outright.
  if (/[\u0000-\u0020\u007f\\]/.test(path) || path.startsWith("//")) return "/";
  if (path.startsWith("/pages/user/login")) return "/";
  return path;
}
