/**
 * Which real-exchange upstream a deployment may take prices from. A rule of trust, not of the
 * connection: the QuoteHub checks it before it connects, and worker/mode.ts checks it to decide
 * whether a deployment trades real money at all.
 */
import { isLocalRun } from "../../app-env";

/** The configured allow-list (`PRICE_FEED_ALLOWED_HOSTS`, "host[:port]" comma-separated). */
export function allowedHosts(text: string | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase().replace(/:443$/, ""))
    .filter(Boolean);
}

/**
 * May the hub connect to this upstream? Only `wss://` to a host (and port) on the allow-list,
 * with no userinfo, query or fragment, so a mistyped or planted URL can never feed prices.
 * The local fake upstream (plain ws on 127.0.0.1) is accepted only outside production and
 * only when the test-only loopback switch is on.
 */
export function upstreamUrlAllowed(url: string | undefined, allowList: string | readonly string[], app_env: string, loopback = false): boolean {
  const hosts = allowedHosts(typeof allowList === "string" ? allowList : allowList.join(","));
  let u: URL;
  try {
    u = new URL(url ?? "");
  } catch {
    return false;
  }
  if (u.username || u.password || u.search || u.hash) return false;
  if (loopback && isLocalRun({ APP_ENV: app_env }) && (u.protocol === "ws:" || u.protocol === "wss:") && u.hostname === "127.0.0.1" && u.port !== "") return true;
  return u.protocol === "wss:" && hosts.includes(u.host);
}

/** The bindings that decide which upstream a deployment may use (see wrangler.toml). */
export type FeedEnv = { APP_ENV: string; PRICE_FEED_URL?: string; PRICE_FEED_ALLOWED_HOSTS?: string; PRICE_FEED_ALLOW_LOOPBACK?: string };

/** upstreamUrlAllowed with this deployment's configuration (the feed's base URL by default). */
export function feedUrlAllowed(env: FeedEnv, url = env.PRICE_FEED_URL): boolean {
  return upstreamUrlAllowed(url, env.PRICE_FEED_ALLOWED_HOSTS ?? "", env.APP_ENV, env.PRICE_FEED_ALLOW_LOOPBACK === "1");
}
