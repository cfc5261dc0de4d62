import { Hono } from "hono";
import { lazyDb } from "../db/client";
import { detectLang, detectLangEarly } from "./middleware/lang";
import { readInput } from "./middleware/input";
import { translate } from "../i18n";
import { API_SECURITY_HEADERS, ApiError, carriesSecurityHeaders, envelopeResponse, fail, ok } from "./envelope";
import { adminApi } from "./resources/admin";
import { adminMoneyApi } from "./resources/admin-money";
import { adminUsersApi } from "./resources/admin-users";
import { guardMoneyRoutes } from "./middleware/step-up";
import { adminTradesApi } from "./resources/admin-trades";
import { adminTermsApi } from "./resources/admin-terms";
import { adminEarnApi } from "./resources/admin-earn";
import { adminPromotionsApi } from "./resources/admin-promotions";
import { indexApi } from "./resources/index";
import { userApi } from "./resources/user";
import { devicesApi } from "./resources/devices";
import { moneyApi } from "./resources/money";
import { bindingApi } from "./resources/binding";
import { twoFactorApi } from "./resources/two-factor";
import { limitsApi } from "./resources/limits";
import { adminProfilesApi, profileApi } from "./resources/profile";
import { commonApi, UPLOAD_BODY_LIMIT } from "./resources/common";
import { marketsApi, orderApi, placeOrderApi } from "./resources/trades";
import { earnApi } from "./resources/earn";
import { promotionsApi } from "./resources/promotions";
import { testClockApi } from "./resources/test-clock";
import { kefuApi, serviceApi } from "./resources/service";
import { adminServiceApi } from "./resources/admin-service";
import { notificationsApi } from "./resources/notifications";
import { adminProofApi, proofApi } from "./resources/proof";
import { adminMailboxApi } from "./resources/admin-mailbox";
import { adminOperationsApi } from "./resources/admin-operations";
import { readiness } from "../observability/readiness";
import { isolateStartedMs } from "./isolate";
import type { AppEnv } from "./types";
import { modeOf } from "../mode";
import { pokeLog } from "../../durable-objects/transparency/log-api";
import { afterResponse } from "./idempotency";
import { logError } from "../observability/log";
import { apiRequestContext } from "../observability/request";

/** Writes whose Durable Object wakes the transparency log itself. */
const POKED_BY_HUB = new Set(["/api/order/addorder"]);

const SECURITY_HEADER_ENTRIES = Object.entries(API_SECURITY_HEADERS);

/** The routes that take one image (multipart) and so a larger body. */
const UPLOAD_PATHS = new Set(["/api/common/upload", "/api/service/upload", "/api/admin/service/upload"]);

/**
 * The whole `/api`: one sub-app per resource, one error handler, one envelope.
 * Remix loaders call this same app in-process (app/lib/api.server.ts).
 */
export function createApi() {
  const app = new Hono<AppEnv>().basePath("/api");

  // First: the request's id and its route pattern, for every line the API writes (and the request's own).
  app.use("*", apiRequestContext());

  // nosniff, no framing, no referrer leaks: JSON answers are never rendered as anything else.
  // Envelopes are made with these headers and their queued cookies (envelope.ts); any other
  // answer (a CSV, a file) gets both here.
  app.use("*", async (c, next) => {
    await next();
    if (carriesSecurityHeaders(c)) return;
    const h = c.res.headers;
    for (const [name, value] of SECURITY_HEADER_ENTRIES) if (!h.has(name)) h.set(name, value);
    for (const cookie of c.get("set_cookies") ?? []) h.append("set-cookie", cookie);
  });
  app.use("*", detectLangEarly, async (c, next) => {
    isolateStartedMs();
    c.set("db", lazyDb(() => c.env.DB));
    await next();
  });
  // Uploads may carry one image up to 1 MiB (plus multipart framing); everything else 64 KiB.
  app.use("*", readInput((path) => (UPLOAD_PATHS.has(path) ? UPLOAD_BODY_LIMIT : null)), detectLang);

  // A request that changed something may have queued transparency-log leaves: wake the sequencer.
  // An order's hub wakes it itself, once per group of orders written.
  app.use("*", async (c, next) => {
    await next();
    if (c.req.method !== "GET" && c.res.status < 400 && !POKED_BY_HUB.has(c.req.path)) await afterResponse(c, pokeLog(c.env));
  });

  // Production without a usable price feed is not ready: it takes no orders, and says so here (503).
  app.on(["GET", "POST"], "/health", (c) => {
    const mode = modeOf(c.env);
    const ready = mode !== "unready";
    return envelopeResponse(c, { code: ready ? 1 : 0, msg: translate(c.get("locale"), ready ? "errors.ok" : "errors.feed_unavailable"), data: { time_ms: Date.now(), mode, ready } }, ready ? 200 : 503);
  });
  // Readiness (decision 130): every check with its value and threshold; 503 naming each failing one.
  app.get("/health/ready", async (c) => {
    const r = await readiness(c.env, c.get("db"), { now_ms: Date.now(), isolate_started_ms: isolateStartedMs() });
    if (!r.ready) throw new ApiError("errors.not_ready", 503, { checks: r.failing.join(", ") }, { ...r });
    return ok(c, r);
  });
  app.route("/user", userApi);
  app.route("/user", devicesApi);
  // Open to guests: before the /user sub-apps whose middleware requires a session.
  app.route("/user", kefuApi);
  app.route("/user", notificationsApi);
  app.route("/user", moneyApi);
  app.route("/user", bindingApi);
  app.route("/user/2fa", twoFactorApi);
  app.route("/user", limitsApi);
  app.route("/user", profileApi);
  app.route("/common", commonApi);
  app.route("/index", indexApi);
  // Before the markets: `/index/product` with a `type` is earn's, without one the market detail.
  app.route("/index", earnApi);
  app.route("/index", promotionsApi);
  app.route("/index", marketsApi);
  // Before orderApi: placing an order resolves its session in the symbol's hub (decision 106).
  app.route("/order", placeOrderApi);
  app.route("/order", orderApi);
  // The money routes need a fresh second-factor confirmation: the list is in the middleware's file.
  guardMoneyRoutes(app);
  app.route("/admin", adminApi);
  app.route("/admin", adminUsersApi);
  app.route("/admin", adminMoneyApi);
  app.route("/admin", adminTradesApi);
  app.route("/admin", adminTermsApi);
  app.route("/admin", adminEarnApi);
  app.route("/admin", adminPromotionsApi);
  app.route("/admin", adminProfilesApi);
  app.route("/admin/service", adminServiceApi);
  app.route("/service", serviceApi);
  app.route("/proof", proofApi);
  app.route("/admin/proof", adminProofApi);
  app.route("/admin", adminOperationsApi);
  app.route("/admin", adminMailboxApi);
  app.route("/test", testClockApi);

  app.notFound((c) => fail(c, new ApiError("errors.not_found", 404)));
  app.onError((err, c) => {
    if (err instanceof ApiError) return fail(c, err);
    // Unknown failures: logged under the request's id and route for us, a plain localized envelope for the client.
    logError("api.error", { method: c.req.method, err });
    return fail(c, new ApiError("errors.internal", 500));
  });
  return app;
}

export type Api = ReturnType<typeof createApi>;
