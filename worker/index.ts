/**
 * The one Worker: `/api/*` → Hono, `/ws/*` → Durable Objects, `/files/*` → private uploads,
 * everything else → Remix (static files under public/ are served by the assets binding first,
 * except on the paths wrangler.toml's `run_worker_first` sends here directly: decision 166).
 */
import { createRequestHandler, type ServerBuild } from "@remix-run/cloudflare";
import { createApi } from "./api/app";
import { inProcessApi, inProcessFetch } from "./api/in-process";
import type { Env } from "./env";
import { handleWebSocket } from "./ws";
import { serveFile } from "./files";
import { withInvocationDb } from "./db/limits";
import { runCron } from "./cron";
import { boundedPageRequest, crossSitePageWrite, newNonce, withSecureCookies } from "./page-security";
import { APP_ENVS, appEnvOf, walletOf } from "./mode";
import { checkMoneyMode } from "./domain/ledger/money-mode";
import { getDb } from "./db/client";
import { asInvocation, logError } from "./observability/log";
import { observeRequest } from "./observability/request";

export { UserChannel } from "../durable-objects/user-channel/user-channel";
export { QuoteHub } from "../durable-objects/quotes/quote-hub";
export { QuoteRelay } from "../durable-objects/quotes/quote-relay";
export { ServiceConversation } from "../durable-objects/service/conversation";
export { ServiceInbox } from "../durable-objects/service/inbox";
export { LogSequencer } from "../durable-objects/transparency/log-sequencer";

const api = createApi();
/**
 * The Remix server build (`npm run build` writes it before wrangler bundles this file) is 4 MB of
 * pages: it loads on the first page request, so API calls, sockets, crons and Durable Objects
 * never wait for it (and each API test file does not evaluate it).
 */
let remix: Promise<ReturnType<typeof createRequestHandler>> | undefined;
const remixHandler = () => (remix ??= import("../build/server/index.js").then((build) => createRequestHandler(build as unknown as ServerBuild)));

/** Where a request goes: the API, a socket, a private file, or a page. */
async function route(request: Request, pathname: string, env: Env, ctx: ExecutionContext): Promise<Response> {
  if (pathname === "/api" || pathname.startsWith("/api/")) return api.fetch(request, env, ctx);
  if (pathname.startsWith("/ws/")) return handleWebSocket(request, env);
  if (pathname.startsWith("/files/")) return serveFile(request, env);
  if (crossSitePageWrite(request)) return new Response("Cross-site form posts are refused.", { status: 403, headers: { "content-type": "text/plain; charset=utf-8" } });
  const bounded = await boundedPageRequest(request);
  if (!bounded) return new Response("The request is too large.", { status: 413, headers: { "content-type": "text/plain; charset=utf-8" } });
  const [ip, origin, ua] = [request.headers.get("cf-connecting-ip"), new URL(request.url).origin, request.headers.get("user-agent")];
  const handleRemix = await remixHandler();
  return handleRemix(bounded, { env, ctx, api: inProcessApi(api, env, ctx, ip, origin, ua), apiFetch: inProcessFetch(api, env, ctx, ip, origin, ua), cspNonce: newNonce() });
}

/**
 * A deployment that must not serve: an APP_ENV off the allow-list, or a database holding the
 * other mode's money (decision 122). Checked once per isolate and database; null when it may.
 */
const refusals = new WeakMap<object, Map<string, Promise<string | null>>>();
function refusalOf(env: Env): Promise<string | null> {
  if (appEnvOf(env) === null) return Promise.resolve(`APP_ENV "${env.APP_ENV}" is not one of ${APP_ENVS.join(", ")}`);
  const byWallet = refusals.get(env.DB) ?? new Map<string, Promise<string | null>>();
  refusals.set(env.DB, byWallet);
  let known = byWallet.get(walletOf(env));
  if (!known) {
    known = checkMoneyMode(getDb(env.DB), walletOf(env), Date.now()).then(
      (r) => (r.status === "ok" ? null : `this database holds ${r.held} money; APP_ENV "${env.APP_ENV}" moves ${walletOf(env)} money`),
      (err) => {
        // Not known yet (the database is unreachable): asked again at the next request.
        byWallet.delete(walletOf(env));
        throw err;
      },
    );
    byWallet.set(walletOf(env), known);
  }
  return known;
}

/** What a refused deployment answers: the envelope, 503, and the reason in the log only. */
function refused(reason: string): Response {
  logError("deploy.refused", { reason });
  return Response.json({ code: 0, msg: "This deployment is misconfigured and serves nothing until an operator fixes it.", data: { error: "misconfigured" } }, { status: 503 });
}

export default {
  /** Every request under its id (`x-request-id` on the answer), with its metric point and, when refused, failed or slow, its `http.request` line. */
  async fetch(request, rawEnv, ctx) {
    const { pathname } = new URL(request.url);
    return observeRequest(request, pathname, rawEnv.METRICS, async () => {
      const env = withInvocationDb(rawEnv);
      const reason = await refusalOf(rawEnv);
      if (reason) return refused(reason);
      return withSecureCookies(await route(request, pathname, env, ctx), request, env);
    });
  },

  /**
   * The minute cron: its jobs (the settlement and earn sweeps, the log's poke and daily
   * snapshot) are listed in worker/cron.ts, which records each run in `cron_runs`. A run with a
   * failed job throws after recording it, so the platform's cron events show it failed too.
   */
  async scheduled(_controller, env) {
    const reason = await refusalOf(env);
    if (reason) return void refused(reason);
    const run = await asInvocation("cron", () => runCron(env));
    if (run.outcome === "failed") throw new Error(`cron run failed: ${run.jobs.filter((j) => !j.ok).map((j) => j.name).join(", ")}`);
  },
} satisfies ExportedHandler<Env>;
