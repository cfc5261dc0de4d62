/**
 * Observability inside workerd (decisions 128-129): every request through the Worker has an id
 * (Cloudflare's ray, or one made), echoed as `x-request-id`, one `http.request` JSON line and one
 * `request` metric point named by its route pattern; the order path's hub and the metric points
 * of order groups, settlement rounds and the feed; and the lines of requests that log (an
 * unexpected error, refused sign-ins, a failing push) are JSON with a request id and none holds
 * the password, token or code the request carried.
 *
 * A recording dataset stands in for Analytics Engine: handed to the Worker's fetch in its env,
 * and to a hub by replacing the object's env (as tests/api/trades/feed-random.test.ts does).
 */
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../../worker/index";
import { createApi } from "../../worker/api/app";
import { inProcessApi } from "../../worker/api/in-process";
import type { Env } from "../../worker/env";
import { captureLogs, currentRequestId, withRequest, type LogFields, type LogLevel } from "../../worker/observability/log";
import { recordingDataset, METRIC_SCHEMA } from "../../worker/observability/metrics";
import { hubFor } from "../../worker/quotes";
import { DEMO } from "../../scripts/seed-demo";
import { call, newUser, seed, testEnv } from "./helpers";
import { approve, operatorToken, recharge, rkey } from "./money/helpers";
import { entered, market, price, user } from "./trades/market-helpers";

let lines: { level: LogLevel; line: LogFields }[] = [];
let restore = () => {};
beforeEach(() => {
  lines = [];
  restore = captureLogs(lines);
});
afterEach(() => {
  restore();
  vi.restoreAllMocks();
});

const RAY = "8c1f2a3b4c5d6e7f-AMS";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The Worker's own fetch (what Cloudflare calls), with a recording dataset as METRICS. */
async function viaWorker(path: string, init: RequestInit = {}, env: Partial<Env> = {}) {
  const metrics = recordingDataset();
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`http://127.0.0.1${path}`, { redirect: "manual", ...init }) as Request<unknown, IncomingRequestCfProperties>, { ...testEnv, METRICS: metrics, ...env }, ctx);
  await waitOnExecutionContext(ctx);
  return { res, metrics };
}

const requestLines = () => lines.filter((l) => l.line.event === "http.request");

describe("one line and one point per request", () => {
  it("takes the ray id, echoes it, and names the API route by its pattern, never the raw path", async () => {
    const { res, metrics } = await viaWorker("/api/order/orderinfo?id=987654", { method: "POST", headers: { "cf-ray": RAY } });
    expect(res.status).toBe(401);
    expect(res.headers.get("x-request-id")).toBe(RAY);
    expect(requestLines()).toHaveLength(1);
    const [{ level, line }] = requestLines();
    expect(level).toBe("warn");
    expect(line).toMatchObject({ level: "warn", event: "http.request", request_id: RAY, route: "/api/order/orderinfo", method: "POST", status: 401 });
    expect(typeof line.duration_ms).toBe("number");
    expect(new Date(String(line.time)).getTime()).toBeGreaterThan(0);
    expect(JSON.stringify(lines)).not.toContain("987654");
    expect(metrics.raw).toHaveLength(1);
    expect(metrics.raw[0].indexes).toEqual(["request"]);
    expect(metrics.raw[0].blobs).toHaveLength(1 + METRIC_SCHEMA.request.blobs.length);
    expect(metrics.raw[0].doubles).toHaveLength(METRIC_SCHEMA.request.doubles.length);
    expect(metrics.points[0]).toMatchObject({ kind: "request", blobs: { route: "/api/order/orderinfo", status_class: "4xx", method: "POST" }, doubles: { status: 401 } });
    expect(metrics.points[0].doubles.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("a route with parameters is named by its pattern; an unknown path is /api/*; a made id is a UUID; a client's x-request-id is not taken", async () => {
    const withParam = await viaWorker("/api/admin/terms/proposals/4242/open", { method: "POST" });
    expect(withParam.metrics.points[0].blobs.route).toBe("/api/admin/terms/proposals/:id/open");
    const unknown = await viaWorker("/api/nothing/31337?x=1", { method: "GET", headers: { "x-request-id": "chosen-by-client" } });
    expect(unknown.res.status).toBe(404);
    expect(unknown.metrics.points[0].blobs).toEqual({ route: "/api/*", status_class: "4xx", method: "GET" });
    const id = unknown.res.headers.get("x-request-id")!;
    expect(id).toMatch(UUID);
    expect(requestLines().map((l) => l.line.request_id)).toContain(id);
    expect(JSON.stringify(lines)).not.toMatch(/4242|31337|chosen-by-client/);
  });

  it("a page gets a coarse route and the id too; a fast successful answer writes its point and no line", async () => {
    const { res, metrics } = await viaWorker("/no/such/page/123", { headers: { "cf-ray": RAY } });
    expect(res.headers.get("x-request-id")).toBe(RAY);
    expect(metrics.points[0].blobs.route).toBe("page:other");
    const health = await viaWorker("/api/health", { method: "GET" });
    expect(health.metrics.points[0]).toMatchObject({ blobs: { route: "/api/health", status_class: "2xx", method: "GET" }, doubles: { status: 200 } });
    // The platform's invocation log holds a fast success (decision 156); the 404 above wrote its line.
    expect(requestLines().filter((l) => l.line.route === "/api/health")).toEqual([]);
    expect(requestLines().at(-1)).toMatchObject({ level: "warn", line: { route: "page:other", status: 404 } });
  });

  it("a socket's 101 carries x-request-id and its WebSocket still works", async () => {
    const product = await market();
    const { res, metrics } = await viaWorker(`/ws/quotes/${encodeURIComponent(product.symbol)}`, { headers: { upgrade: "websocket", "cf-ray": RAY } });
    expect(res.status).toBe(101);
    expect(res.headers.get("x-request-id")).toBe(RAY);
    const ws = res.webSocket!;
    ws.accept();
    const first = new Promise<string>((r) => ws.addEventListener("message", (e) => r(String(e.data)), { once: true }));
    expect(JSON.parse(await first).type).toBeTruthy();
    ws.close(1000, "done");
    expect(metrics.points[0].blobs).toMatchObject({ route: "/ws/quotes/:symbol", status_class: "1xx" });
  });
});

describe("the request id reaches in-process calls and the order's hub", () => {
  /** A D1 that fails every statement: what an outage looks like to a route. */
  const brokenDb = { prepare: () => { throw new Error("D1_ERROR: the database is unreachable"); }, batch: async () => { throw new Error("D1_ERROR: the database is unreachable"); } } as unknown as D1Database;

  it("a page's in-process API call logs under the page's id, with the API's route pattern", async () => {
    const api = createApi();
    const env = { ...testEnv, DB: brokenDb };
    const r = await withRequest({ request_id: "page-req-1", route: "page:/pages" }, () => inProcessApi(api, env, createExecutionContext())("/api/user/login", { body: { account: "nobody", password: "pw-in-process-9f3" } }));
    expect(r.status).toBe(500);
    const error = lines.find((l) => l.line.event === "api.error");
    expect(error).toMatchObject({ level: "error", line: { request_id: "page-req-1", route: "/api/user/login", error_name: "Error" } });
    // Without the async context (lost by some runtime path) the in-process header still carries it.
    lines.length = 0;
    const { IN_PROCESS_HEADER, inProcessMark } = await import("../../worker/in-process-mark");
    await api.request("http://internal/api/user/login", { method: "POST", headers: { [IN_PROCESS_HEADER]: inProcessMark(), "x-request-id": "page-req-2", "content-type": "application/json" }, body: JSON.stringify({ account: "nobody", password: "pw-in-process-9f3" }) }, env);
    expect(lines.find((l) => l.line.event === "api.error")?.line.request_id).toBe("page-req-2");
    expect(JSON.stringify(lines)).not.toContain("pw-in-process-9f3");
  });

  it("the hub places the order under the API request's id, and writes its order_group, settlement and feed points", async () => {
    const product = await market({ durations: [{ seconds: 2, profit_rate_bp: 8000, min_stake_micro: 1_000_000, max_stake_micro: 10_000_000_000 }] });
    const u = await user(100);
    const hub = await hubFor(testEnv, product);
    const metrics = recordingDataset();
    const seen: (string | undefined)[] = [];
    await hub.latest();
    await runInDurableObject(hub, (instance) => {
      const o = instance as unknown as { env: Env; sessions: { userOf(hash: string): Promise<number | null> } };
      o.env = { ...o.env, METRICS: metrics };
      const userOf = o.sessions.userOf.bind(o.sessions);
      o.sessions.userOf = (hash) => (seen.push(currentRequestId()), userOf(hash));
    });
    const body = JSON.stringify({ product_id: product.id, direction: "up", amount: "10", seconds: 2, quote_price: await price(product.id), client_order_id: rkey("obs") });
    const { res } = await viaWorker("/api/order/addorder", { method: "POST", headers: { "cf-ray": RAY, token: u.token, "content-type": "application/json" }, body });
    const placed = (await res.json()) as { code: number; data: { id: number } };
    expect(placed.code).toBe(1);
    expect(seen).toEqual([RAY]);

    const group = metrics.points.find((p) => p.kind === "order_group")!;
    expect(group).toMatchObject({ blobs: { symbol: product.symbol }, doubles: { orders: 1 } });
    expect(group.doubles.write_ms).toBeGreaterThanOrEqual(0);

    await entered(placed.data.id);
    await new Promise((r) => setTimeout(r, 2_500));
    await hub.settleDue();
    const settlement = metrics.points.find((p) => p.kind === "settlement")!;
    expect(settlement.blobs).toEqual({ symbol: product.symbol });
    expect(settlement.doubles.orders).toBe(1);
    // Settled after its delivery, within the test's few seconds.
    expect(settlement.doubles.lag_ms).toBeGreaterThanOrEqual(0);
    expect(settlement.doubles.lag_ms).toBeLessThan(30_000);

    await runInDurableObject(hub, (instance) => (instance as unknown as { reportFeed(now_ms: number): void }).reportFeed(Date.now()));
    const feed = metrics.points.find((p) => p.kind === "feed")!;
    expect(feed.blobs).toEqual({ symbol: product.symbol, feed: "simulation" });
    expect(feed.doubles.age_ms).toBeGreaterThanOrEqual(0);
    expect(feed.doubles.age_ms).toBeLessThan(30_000);
    expect(feed.doubles.sockets).toBe(0);
    for (const p of metrics.raw) expect(p.indexes).toEqual([p.blobs![0]]);
  });
});

describe("lines of requests that log hold no secret", () => {
  /** Every line is a JSON object (captureLogs parses it) with time, level, event and a request id. */
  function expectCleanLines(secrets: string[]) {
    expect(lines.length).toBeGreaterThan(0);
    for (const { line } of lines) {
      expect(line).toMatchObject({ time: expect.any(String), level: expect.any(String), event: expect.stringMatching(/^[a-z_]+(\.[a-z_]+)+$/) });
      expect(line.request_id, JSON.stringify(line)).toEqual(expect.any(String));
    }
    const text = JSON.stringify(lines);
    for (const s of secrets) expect(text).not.toContain(s);
  }

  it("an unexpected error: api.error with the request id, not the password sent", async () => {
    const password = "pw-unexpected-7c1e";
    const r = await createApi().request("/api/user/login", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ account: "someone", password }) }, { ...testEnv, DB: { prepare: () => { throw new Error("D1_ERROR: unreachable"); } } as unknown as D1Database });
    expect(r.status).toBe(500);
    expect(lines.map((l) => l.line.event)).toEqual(["api.error"]);
    expectCleanLines([password]);
  });

  it("refused sign-ins of a user and an operator: the password, token and code never appear", async () => {
    await seed();
    const u = await newUser();
    const wrong = "pw-wrong-guess-51ab";
    await viaWorker("/api/user/login", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ account: u.account, password: wrong }) });
    await viaWorker("/api/user/login", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ account: u.account, password: u.password }) });
    await viaWorker("/api/admin/login", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ account: DEMO.operator.account, password: DEMO.operator.password, code: "000000" }) });
    await viaWorker("/api/user/info", { method: "POST", headers: { token: u.token } });
    // The refusals answered with an HTTP error wrote their lines; the fast successes none (decision 156).
    expect(requestLines().length).toBeGreaterThan(0);
    expect(requestLines().filter((l) => Number(l.line.status) < 400)).toEqual([]);
    expectCleanLines([wrong, u.password, u.token, DEMO.operator.password, DEMO.operator.totp_key, '"000000"']);
  });

  it("a failing push: push.failed with the request id, no endpoint secret, key or token", async () => {
    const u = await newUser();
    const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"])) as CryptoKeyPair;
    const { base64urlnopad } = await import("@scure/base");
    const toBase64Url = base64urlnopad.encode;
    const p256dh = toBase64Url(new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer));
    const auth = toBase64Url(crypto.getRandomValues(new Uint8Array(16)));
    const path = rkey("obs-push-secret-path");
    expect((await call("/api/user/push/subscribe", { endpoint: `https://push.example.test/${path}`, p256dh, auth }, { token: u.token })).code).toBe(1);
    const dep = await recharge(u.token, "25");
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      if (url.startsWith("https://push.example.test/")) throw new Error("network connection lost");
      return realFetch(input, init);
    });
    lines.length = 0;
    const op = await operatorToken();
    const approved = await approve(op, dep.data.id, "25");
    expect(approved.code, approved.msg).toBe(1);
    const failed = lines.filter((l) => l.line.event === "push.failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ level: "error", line: { error: "network connection lost", route: "/api/admin/deposits/:id/approve" } });
    expectCleanLines([path, p256dh, auth, u.token, op]);
  });
});
