/**
 * The local server as ONE workerd process, through Miniflare's API: the Worker bundled exactly as
 * `wrangler deploy` bundles it, the bindings of wrangler.toml, and the state layout of `wrangler
 * dev --persist-to` (so migrations, the seed and `wrangler d1 ... --local` share one state).
 * `wrangler dev` puts a second process in front (its proxy) that every request and every
 * WebSocket message crosses, holding about six file descriptors per socket; without it the
 * machine's two cores serve the Worker alone (decision 085). It also runs the cron every minute,
 * as Cloudflare would, which `wrangler dev` leaves to a manual request.
 *
 *   tsx scripts/workerd-serve.ts --port 8787 --persist-to .wrangler/state [--script S --assets A] [--var K:V]...
 */
import { Log, LogLevel, Miniflare } from "miniflare";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { bin, BUNDLE_ENV, run } from "./lib";

/** wrangler.toml's Worker, as Miniflare options take it (tests/unit/scripts compares the two). */
export const WORKER = {
  name: "proofline",
  compatibilityDate: "2026-04-20",
  compatibilityFlags: ["nodejs_compat"],
  d1Databases: { DB: "00000000-0000-0000-0000-000000000000" },
  r2Buckets: { UPLOADS: "proofline-uploads", LOG: "proofline-log" },
  durableObjects: { USER_CHANNEL: "UserChannel", QUOTE_HUB: "QuoteHub", SERVICE_CONVERSATION: "ServiceConversation", SERVICE_INBOX: "ServiceInbox", LOG_SEQUENCER: "LogSequencer", QUOTE_RELAY: "QuoteRelay" },
  ratelimits: { AUTH_LIMIT: { limit: 30, period: 60 } },
  /** Cloudflare Email Service, simulated: nothing leaves the machine (worker/mail/send.ts). */
  sendEmail: [{ name: "EMAIL" }],
  vars: { APP_ENV: "production", PRICE_FEED_ALLOWED_HOSTS: "stream.binance.com:9443,data-stream.binance.vision", LOG_WITNESSES: "", LOG_WITNESS_QUORUM: "" },
  crons: ["* * * * *"],
  assets: { directory: "./public", binding: "ASSETS", run_worker_first: ["/api/*", "/ws/*", "/files/*", "/pages/*", "/admin/*"] },
} as const;

/** The production bundle (`wrangler deploy --dry-run`): one module with everything in it. */
export async function bundleWorker(outdir: string): Promise<string> {
  await run(bin("wrangler"), ["deploy", "--dry-run", "--outdir", outdir, "--env="]);
  return join(outdir, "index.js");
}

export async function workerdServe(opts: {
  port: number;
  persistTo: string;
  vars?: Record<string, string>;
  script?: string;
  assets?: string;
  /** Runs the cron this often instead of at each minute (the crash harness wants it sooner). */
  cronEveryMs?: number;
  /** Overrides a limiter's budget; the limiter itself always runs. */
  ratelimits?: Partial<Record<keyof typeof WORKER.ratelimits, { limit: number; period: number }>>;
}) {
  const script = opts.script ?? process.env[BUNDLE_ENV] ?? (await bundleWorker(join(opts.persistTo, "bundle")));
  const v3 = join(opts.persistTo, "v3");
  mkdirSync(v3, { recursive: true });
  const mf = new Miniflare({
    name: WORKER.name,
    host: "127.0.0.1",
    port: opts.port,
    log: new Log(LogLevel.WARN),
    // One module, listed: Miniflare cannot follow the bundle's dynamic imports, which resolve inside it.
    modules: [{ type: "ESModule", path: script }],
    // Module names are paths below this root: a bundle outside the checkout (npm test's RAM disk) would need "..".
    modulesRoot: dirname(script),
    // No network look-up for the request's `cf` object: a fixed local one.
    cf: false,
    // WORKERD_INSPECTOR_PORT: the V8 inspector (profiling a bench's load with DevTools), off by default.
    ...(process.env.WORKERD_INSPECTOR_PORT ? { inspectorPort: Number(process.env.WORKERD_INSPECTOR_PORT) } : {}),
    compatibilityDate: WORKER.compatibilityDate,
    compatibilityFlags: [...WORKER.compatibilityFlags],
    bindings: { ...WORKER.vars, ...opts.vars },
    d1Databases: { ...WORKER.d1Databases },
    r2Buckets: { ...WORKER.r2Buckets },
    durableObjects: Object.fromEntries(Object.entries(WORKER.durableObjects).map(([binding, className]) => [binding, { className, useSQLite: true }])),
    ratelimits: Object.fromEntries(Object.entries({ ...WORKER.ratelimits, ...opts.ratelimits }).map(([binding, r]) => [binding, { simple: { limit: r!.limit, period: r!.period } }])),
    email: { send_email: WORKER.sendEmail.map((b) => ({ ...b })) },
    assets: { directory: opts.assets ?? WORKER.assets.directory, binding: WORKER.assets.binding, routerConfig: { has_user_worker: true, static_routing: { user_worker: [...WORKER.assets.run_worker_first] } } },
    d1Persist: join(v3, "d1"),
    r2Persist: join(v3, "r2"),
    durableObjectsPersist: join(v3, "do"),
    cachePersist: join(v3, "cache"),
    // The cron's trigger path (below). Only this local server has it; Cloudflare has no such path.
    unsafeTriggerHandlers: true,
  });
  const url = await mf.ready;
  // The cron, as Cloudflare runs it: at the start of every minute, through Miniflare's trigger
  // path (`unsafeTriggerHandlers`), an ordinary asynchronous request. Not `getWorker().scheduled`:
  // that call blocks this process (Atomics.wait) until the run ends, so nothing reads workerd's
  // output meanwhile; when the Worker logged more than the pipe holds (2,000 sockets
  // reconnecting), workerd blocked writing its log, the run never ended, and the server answered
  // nothing, for good.
  const cron = new URL(`/cdn-cgi/handler/scheduled?cron=${encodeURIComponent(WORKER.crons[0])}`, url);
  // Straight to the Worker: without the override the trigger reaches the assets router, which has no cron.
  const tick = () =>
    fetch(new URL(`${cron.search}&time=${Date.now()}`, cron), { headers: { "MF-Route-Override": WORKER.name } })
      .then(async (res) => {
        if (!res.ok) console.error(`cron: the run ended ${await res.text()}`);
      })
      .catch((err: unknown) => console.error("cron:", err));
  let timer: NodeJS.Timeout | undefined;
  const every = opts.cronEveryMs ?? 60_000;
  const schedule = () => (timer = setTimeout(() => (tick(), schedule()), every - (Date.now() % every)));
  schedule();
  return {
    url,
    stop: async () => {
      clearTimeout(timer);
      await mf.dispose();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { port: { type: "string" }, "persist-to": { type: "string" }, script: { type: "string" }, "cron-ms": { type: "string" }, assets: { type: "string" }, var: { type: "string", multiple: true } } });
  const vars = Object.fromEntries((values.var ?? []).map((v) => [v.slice(0, v.indexOf(":")), v.slice(v.indexOf(":") + 1)]));
  const server = await workerdServe({ port: Number(values.port ?? 8787), persistTo: values["persist-to"] ?? ".wrangler/state", vars, script: values.script, assets: values.assets, cronEveryMs: values["cron-ms"] ? Number(values["cron-ms"]) : undefined });
  console.log(`workerd: ${server.url.href}`);
  const stop = () => server.stop().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
