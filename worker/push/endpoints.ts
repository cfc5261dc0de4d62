/**
 * Which URLs the Worker will POST a push to. A subscription's endpoint comes from the browser,
 * so from the user: without this rule any signed-in user could make the Worker send requests
 * to any address (an internal service, another site), an SSRF. Browsers only ever hand out
 * endpoints of their vendor's push service, so only those hosts are accepted, over https on
 * the default port, without credentials in the URL (decision 114).
 */
import { isLocalRun } from "../app-env";

/** The push services browsers use today (checked against their endpoints in the wild). */
export const PUSH_SERVICE_HOSTS = [
  // Chrome, Edge on Android, Samsung Internet, Opera, Brave: Firebase Cloud Messaging.
  "fcm.googleapis.com",
  // Firefox: Mozilla's autopush.
  "updates.push.services.mozilla.com",
] as const;

/** Services that give each region or device group its own host: one label before these. */
export const PUSH_SERVICE_DOMAINS = [
  // Safari on macOS and iOS: web.push.apple.com and its regional hosts.
  "push.apple.com",
  // Edge on Windows: Windows Push Notification Services, e.g. wns2-par02p.notify.windows.com.
  "notify.windows.com",
] as const;

/**
 * Test-only: hosts under `.test` (RFC 6761: never resolved on the internet) stand for a push
 * service, for the API tests' local one. Honoured only outside production, when the deployment
 * sets `PUSH_TEST_HOSTS = "1"` (vitest.config.ts does; wrangler.toml never).
 */
type PushHostEnv = { APP_ENV: string; PUSH_TEST_HOSTS?: string };
const testHostsAllowed = (env: PushHostEnv) => env.PUSH_TEST_HOSTS === "1" && isLocalRun(env);

export function pushEndpointAllowed(endpoint: string, env: PushHostEnv): boolean {
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    return false;
  }
  if (u.protocol !== "https:" || u.port !== "" || u.username || u.password) return false;
  const host = u.hostname;
  if ((PUSH_SERVICE_HOSTS as readonly string[]).includes(host)) return true;
  if (PUSH_SERVICE_DOMAINS.some((d) => host.endsWith(`.${d}`) && /^[a-z0-9-]+$/.test(host.slice(0, -d.length - 1)))) return true;
  return testHostsAllowed(env) && /^([a-z0-9-]+\.)+test$/.test(host);
}
