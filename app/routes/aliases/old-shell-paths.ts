import { redirect, type LoaderFunctionArgs } from "@remix-run/cloudflare";

/**
 * Paths of the old app shell that this product serves elsewhere (docs/decisions/062). The
 * tab-bar paths name pages that exist here under other URLs: 301, so bookmarks and
 * installed shortcuts learn the real one. The location pickers have nothing to pick in a
 * product without location: 302 to the wallet home (not permanent; nothing was renamed).
 * A resource route: the redirect is sent before any page (or login guard) runs, and the
 * page it lands on applies its own guard.
 */
export const OLD_SHELL_PATHS: Record<string, { to: string; status: 301 | 302 }> = {
  "/pages/wallet/index": { to: "/", status: 301 }, // the wallet tab is the wallet home
  "/pages/index/template": { to: "/", status: 301 }, // the old home's template page
  "/pages/rob/index": { to: "/pages/money/index", status: 301 }, // order grabbing: placing orders is the trade tab
  "/pages/team/index": { to: "/pages/me/index", status: 301 }, // the team: the invitation code is on the me tab
  "/choose-location": { to: "/", status: 302 },
  "/open-location": { to: "/", status: 302 },
};

export function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const alias = OLD_SHELL_PATHS[url.pathname.replace(/\/+$/, "")];
  if (!alias) throw new Response("Not found", { status: 404 });
  return redirect(alias.to + url.search, alias.status);
}
