import { Hono } from "hono";
import { secureHeaders } from "hono/secure-headers";
import { getDb } from "../db/client";
import { detectLang, detectLangEarly } from "../middleware/lang";
import { readInput } from "../middleware/input";
import { translate } from "../i18n";
import { ApiError, fail } from "./envelope";
import { adminApi } from "./resources/admin";
import { indexApi } from "./resources/index";
import { userApi } from "./resources/user";
import type { AppEnv } from "./types";

/**
 * The whole `/api`: one sub-app per resource, one error handler, one envelope.
 * Remix loaders call this same app in-process (app/lib/api.server.ts).
 */
export function createApi() {
  const app = new Hono<AppEnv>().basePath("/api");

  // nosniff, no framing, no referrer leaks: JSON answers are never rendered as anything else.
  app.use("*", secureHeaders({ crossOriginResourcePolicy: "same-origin" }));
  app.use("*", detectLangEarly, async (c, next) => {
    c.set("db", getDb(c.env.DB));
    await next();
  });
  app.use("*", readInput(), detectLang);

  app.on(["GET", "POST"], "/health", (c) => c.json({ code: 1, msg: translate(c.get("locale"), "errors.ok"), data: { time_ms: Date.now() } }));
  app.route("/user", userApi);
  app.route("/index", indexApi);
  app.route("/admin", adminApi);

  app.notFound((c) => fail(c, new ApiError("errors.not_found", 404)));
  app.onError((err, c) => {
    if (err instanceof ApiError) return fail(c, err);
    // Unknown failures: logged with the stack for us, a plain localized envelope for the client.
    console.error("api error", c.req.method, new URL(c.req.url).pathname, err);
    return fail(c, new ApiError("errors.internal", 500));
  });
  return app;
}

export type Api = ReturnType<typeof createApi>;
