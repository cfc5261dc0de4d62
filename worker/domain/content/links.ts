/**
 * Which operator-entered addresses (banner links and images) a page may use: a path on this
 * site, or an https URL. Anything else (`javascript:`, `data:`, `//other.site`, `/\other.site`,
 * which browsers read as another site) is refused by the API and never rendered.
 * Images are narrower (`safeImage`, decision 143): the pages' Content-Security-Policy loads
 * images from this site only, so an image elsewhere would never show.
 */
export type SafeLink = { kind: "path"; href: string } | { kind: "https"; href: string };

export function safeLink(raw: string): SafeLink | null {
  const value = raw.trim();
  // One leading slash, then anything but a second slash or a backslash.
  if (/^\/(?![/\\])/.test(value) && !/[\u0000-\u001f\\]/.test(value)) return { kind: "path", href: value };
  if (!/^https:\/\//i.test(value)) return null;
  try {
    const url = new URL(value);
    return url.protocol === "https:" && url.hostname !== "" && url.username === "" && url.password === "" ? { kind: "https", href: url.href } : null;
  } catch {
    return null;
  }
}

/**
 * A banner image a page can show: a path on this site only. The pages' CSP (`img-src 'self'`,
 * worker/page-security.ts) blocks images from other hosts, and keeping it so means no visitor's
 * address or visit reaches a third party through a picture (decision 143).
 */
export function safeImage(raw: string): SafeLink | null {
  const link = safeLink(raw);
  return link?.kind === "path" ? link : null;
}
