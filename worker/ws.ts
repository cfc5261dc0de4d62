import { getDb } from "./db/client";
import { resolveSession } from "./domain/identity/session";
import type { Env } from "./env";
import { tokenFromCookie } from "./session-cookie";
import { hubFor, symbolKey } from "./quotes";
import { listProducts } from "./domain/trades/products";
import { socketRefusal, withSession } from "../durable-objects/page-socket-api";
import { userChannel } from "../durable-objects/user-channel/channel-api";
import { serviceSocket } from "./service-sockets";
import { currentRequestId } from "./observability/log";

/**
 * `/ws/*`: WebSocket upgrades, routed to their Durable Object.
 * - `/ws/user`: the signed-in user's channel (balance changes, order countdowns and results),
 *   authenticated by the page's session cookie.
 * - `/ws/quotes/<symbol>`: a symbol's live ticks and 24h quote (public).
 * - `/ws/service/<conversation_id>` and `/ws/service/inbox`: customer service
 *   (worker/service-sockets.ts).
 */
/** Another site's page, or an origin that is no URL at all ("null" from sandboxed frames, garbage): refused. */
function foreignOrigin(origin: string | null, url: URL): boolean {
  if (!origin) return false;
  if (!URL.canParse(origin)) return true;
  return new URL(origin).host !== url.host;
}

export async function handleWebSocket(request: Request, env: Env): Promise<Response> {
  const url = new URL(request.url);
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return json(request, 426, "errors.malformed");
  // Browsers always send Origin on WebSocket upgrades; another site's page must not ride
  // on our user's cookie (cross-site WebSocket hijacking).
  if (foreignOrigin(request.headers.get("origin"), url)) return json(request, 403, "errors.unauthorized");

  if (url.pathname === "/ws/user") {
    const token = await tokenFromCookie(request.headers.get("cookie"));
    const session = await resolveSession(getDb(env.DB), "user", { token }, Date.now());
    if (session.status !== "ok") return json(request, 401, "errors.unauthorized");
    return userChannel(env, session.subject_id).fetch(withSession(request, session.token_hash));
  }
  if (url.pathname.startsWith("/ws/service/")) return serviceSocket(request, env, url);
  if (url.pathname.startsWith("/ws/quotes/")) {
    // Quotes are public: anyone may watch prices.
    const wanted = symbolKey(decodeURIComponent(url.pathname.slice("/ws/quotes/".length)));
    const product = (await listProducts(getDb(env.DB), { only_enabled: true })).find((p) => symbolKey(p.symbol) === wanted);
    if (!product) return json(request, 404, "errors.not_found");
    const hub = await hubFor(env, product);
    const relays = quoteRelays(env);
    if (relays === 0) return hub.fetch(request);
    // Past one object's audience: a random relay of the symbol's R (decision 103).
    const pick = crypto.getRandomValues(new Uint32Array(1))[0] % relays;
    const relay = env.QUOTE_RELAY.get(env.QUOTE_RELAY.idFromName(`${product.symbol}#${pick}`));
    const headers = new Headers(request.headers);
    headers.set("x-quote-symbol", product.symbol);
    // The relay's lines carry the upgrade's request id.
    const request_id = currentRequestId();
    if (request_id) headers.set("x-request-id", request_id);
    return relay.fetch(new Request(request, { headers }));
  }
  return json(request, 404, "errors.not_found");
}

/** How many relays each symbol's quote sockets spread over (QUOTE_RELAYS; 0, the direct path, by default). */
export function quoteRelays(env: Pick<Env, "QUOTE_RELAYS">): number {
  const n = Number(env.QUOTE_RELAYS ?? "0");
  return Number.isSafeInteger(n) && n > 0 ? Math.min(n, 64) : 0;
}

export const json = (request: Request, status: number, key: string) => socketRefusal(request, status, key);
