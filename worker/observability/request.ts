/**
 * One request, seen from outside: its id (echoed as `x-request-id`), its coarse route, the
 * `request` metric point written when it is answered, and its `http.request` line when it was
 * refused, failed or slow (a fast success is in the platform's invocation log). The Worker's
 * fetch runs every request (API, pages, sockets, files) through `observeRequest`; the API names
 * its matched route pattern in the request's context (`apiRequestContext`), so no line or point
 * ever holds a raw path with ids or a query in it.
 *
 * Per request this costs one context object and one metric point (and a refusal, failure or
 * slow answer one log line): the order path (`/api/order/addorder`) runs through it too.
 */
import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { currentRequest, errorFields, log, requestIdOf, withRequest, type LogLevel, type RequestContext } from "./log";
import { recordMetric, statusClass } from "./metrics";
import { isInProcessRequest } from "../in-process-mark";

export const REQUEST_ID_HEADER = "x-request-id";

/** The API's route when nothing matched (a 404): never the raw path. */
export const API_UNMATCHED = "/api/*";

/**
 * A coarse, bounded name for what is not the API: sockets by kind, files, and pages by their
 * top section (the API replaces its own with the matched pattern). Every name comes from this
 * list, so a visitor's path never becomes a new route in the logs or the metrics.
 */
export function coarseRouteOf(pathname: string): string {
  if (pathname === "/api" || pathname.startsWith("/api/")) return API_UNMATCHED;
  if (pathname.startsWith("/ws/")) {
    if (pathname === "/ws/user") return "/ws/user";
    if (pathname.startsWith("/ws/quotes/")) return "/ws/quotes/:symbol";
    if (pathname.startsWith("/ws/service/")) return "/ws/service/:id";
    return "/ws/*";
  }
  if (pathname.startsWith("/files/")) return "/files/*";
  if (pathname === "/") return "page:/";
  if (pathname.startsWith("/pages/")) return "page:/pages";
  if (pathname === "/admin" || pathname.startsWith("/admin/")) return "page:/admin";
  return "page:other";
}

/** The level of a request's line: 5xx is ours to fix (error), 4xx a refusal worth seeing (warn). */
export function levelOf(status: number): LogLevel {
  return status >= 500 ? "error" : status >= 400 ? "warn" : "info";
}

/**
 * The response with `x-request-id` set. A socket's 101 is made again around its WebSocket; a
 * response whose headers are immutable (one a Durable Object or `fetch` answered) is copied.
 */
export function withRequestId(res: Response, request_id: string): Response {
  try {
    res.headers.set(REQUEST_ID_HEADER, request_id);
    return res;
  } catch {
    const headers = new Headers(res.headers);
    headers.set(REQUEST_ID_HEADER, request_id);
    if (res.webSocket) return new Response(null, { status: res.status, statusText: res.statusText, headers, webSocket: res.webSocket });
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }
}

/**
 * A successful answer faster than this writes no line (decision 156): Cloudflare's own
 * invocation log (Workers Logs, under the same ray) and the `request` metric point already hold
 * it, and the local server measured the line at about a tenth of an order's cost. A refusal, a
 * failure, a throw and a slow success still write theirs.
 */
export const SLOW_REQUEST_MS = 1_000;

/** Whether a request's answer writes an `http.request` line. */
export function logsRequestLine(status: number, duration_ms: number, err?: unknown): boolean {
  return status >= 400 || duration_ms >= SLOW_REQUEST_MS || err !== undefined;
}

/** Writes the request's metric point and, when `logsRequestLine` says so, its line. */
export function requestDone(metrics: AnalyticsEngineDataset | undefined, rc: RequestContext, method: string, status: number, duration_ms: number, err?: unknown): void {
  const route = rc.route ?? "page:other";
  if (logsRequestLine(status, duration_ms, err)) log(levelOf(status), "http.request", { method, status, duration_ms, ...(err === undefined ? {} : errorFields(err)) });
  recordMetric(metrics, "request", { route, status_class: statusClass(status), method, duration_ms, status });
}

/**
 * Runs one request under its id and writes its line and point when it is answered (or when it
 * throws: then the line says 500 and the error, and the error goes on to the runtime).
 */
export async function observeRequest(request: Request, pathname: string, metrics: AnalyticsEngineDataset | undefined, serve: () => Promise<Response>): Promise<Response> {
  const started_ms = Date.now();
  const rc: RequestContext = { request_id: requestIdOf(request.headers), route: coarseRouteOf(pathname) };
  return withRequest(rc, async () => {
    let res: Response;
    try {
      res = await serve();
    } catch (err) {
      requestDone(metrics, rc, request.method, 500, Date.now() - started_ms, err);
      throw err;
    }
    requestDone(metrics, rc, request.method, res.status, Date.now() - started_ms);
    return withRequestId(res, rc.request_id);
  });
}

/**
 * The API's route pattern (`/api/order/addorder`, `/api/admin/users/:id`): the first matched
 * handler's path (middleware is registered for ALL methods, handlers for theirs), or
 * API_UNMATCHED when only middleware matched.
 */
export function apiRouteOf(routes: readonly { method: string; path: string }[]): string {
  for (const r of routes) if (r.method !== "ALL") return r.path;
  return API_UNMATCHED;
}

/**
 * The API's first middleware: names the route pattern in the request's context. A request
 * the Worker's fetch observes already has a context (its line is written there); a page's
 * in-process call gets one of its own under the page's id (its lines name the API route, the
 * page's line keeps the page's); a call straight into the app (Node scripts, tests) gets a new id.
 */
export function apiRequestContext(): MiddlewareHandler {
  return (c, next) => {
    const route = apiRouteOf(matchedRoutes(c));
    const outer = currentRequest();
    const inProcess = isInProcessRequest(c.req.raw.headers);
    if (outer && !inProcess) {
      outer.route = route;
      return next();
    }
    // An in-process call whose async context was lost still has the page's id in its header.
    const request_id = outer?.request_id ?? (inProcess ? c.req.header(REQUEST_ID_HEADER) : undefined) ?? requestIdOf(c.req.raw.headers);
    return withRequest({ request_id, route }, next);
  };
}
