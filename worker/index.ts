/**
 * The one Worker: `/api/*` → Hono, `/ws/*` → Durable Objects, everything else → Remix
 * (static files under public/ are served by the assets binding before this runs).
 */
import { createRequestHandler, type ServerBuild } from "@remix-run/cloudflare";
// The Remix server build: `npm run build` writes it before wrangler bundles this file.
import * as build from "../build/server/index.js";
import { createApi } from "./api/app";
import { inProcessApi } from "./api/in-process";
import type { Env } from "./env";
import { handleWebSocket } from "./ws";
import { serveFile } from "./files";

export { UserChannel } from "../durable-objects/user-channel/user-channel";

const api = createApi();
const handleRemix = createRequestHandler(build as unknown as ServerBuild);

export default {
  async fetch(request, env, ctx) {
    const { pathname } = new URL(request.url);
    if (pathname === "/api" || pathname.startsWith("/api/")) return api.fetch(request, env, ctx);
    if (pathname.startsWith("/ws/")) return handleWebSocket(request, env);
    if (pathname.startsWith("/files/")) return serveFile(request, env);
    return handleRemix(request, { env, ctx, api: inProcessApi(api, env, ctx) });
  },
} satisfies ExportedHandler<Env>;
