/**
 * Structured logs: one JSON line per event, the only way the Worker and its objects write a log.
 * Workers Logs (wrangler.toml `[observability]`) indexes each line's fields, so an operator can
 * ask for "every event of request X" or "every error of route Y" without parsing text.
 *
 * Every line has `time`, `level`, `event` and, inside a request, its `request_id` (from
 * Cloudflare's `cf-ray`, or made here; echoed to the client as `x-request-id`). The id travels
 * with the request's async context (AsyncLocalStorage, nodejs_compat): in-process API calls and
 * anything the handler awaits log under it; calls into Durable Objects pass it along by hand.
 *
 * Secrets never reach a line: fields whose name says they hold one are written as "[redacted]",
 * and an error is logged by its name and message (its stack has no request data in it).
 */
import { AsyncLocalStorage } from "node:async_hooks";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;

/** What a request carries through its async context. */
export type RequestContext = { request_id: string; route?: string };

/**
 * The context and the sink live on the global object, once per isolate: the Remix server build
 * bundles its own copy of this module, and its lines (entry.server.tsx) must carry the request
 * id the Worker's copy set, and go where the Worker's go.
 */
type Shared = { context: AsyncLocalStorage<RequestContext>; sink: (level: LogLevel, line: string) => void };
const SHARED = Symbol.for("proofline.observability.log");
const shared: Shared = ((globalThis as Record<symbol, Shared | undefined>)[SHARED] ??= {
  context: new AsyncLocalStorage<RequestContext>(),
  sink: (level, line) => {
    if (level === "error") console.error(line);
    else if (level === "warn") console.warn(line);
    else console.log(line);
  },
});
const context = shared.context;

/** Runs `fn` with `ctx` as the current request (its lines carry the request id). */
export function withRequest<T>(ctx: RequestContext, fn: () => T): T {
  return context.run(ctx, fn);
}

/** Runs `fn` under the request `request_id` when there is one (a Durable Object's RPC handed it over), else as it is. */
export function underRequest<T>(request_id: string | undefined, route: string, fn: () => T): T {
  return request_id ? context.run({ request_id, route }, fn) : fn();
}

/**
 * Runs work that no request started (a cron run, an object's alarm) under an id of its own, so
 * its lines carry one too and can be asked for together: `route` names the invocation
 * (`cron`, `alarm:quote-hub`).
 */
export function asInvocation<T>(route: string, fn: () => T): T {
  return context.run({ request_id: crypto.randomUUID(), route }, fn);
}

/** The current request's context, if any: the API names its route pattern in it once it is matched. */
export function currentRequest(): RequestContext | undefined {
  return context.getStore();
}

/** The current request's id, if any (to hand to a Durable Object call). */
export function currentRequestId(): string | undefined {
  return context.getStore()?.request_id;
}

/** The request's id: Cloudflare's ray id when present (it ties our line to Cloudflare's), else a new one. */
export function requestIdOf(headers: Headers): string {
  const ray = headers.get("cf-ray");
  if (ray && /^[A-Za-z0-9-]{8,64}$/.test(ray)) return ray;
  return crypto.randomUUID();
}

/**
 * Field names that may hold a secret: their values are never written. A name is split into its
 * words (snake_case, camelCase, kebab-case); one secret word is enough (`token_hash`,
 * `newPassword`, `card_number`, `api_key`). "code" alone names a one-time or recovery code.
 */
const SECRET_WORDS = new Set(["token", "tokens", "password", "passwd", "secret", "otp", "totp", "cookie", "authorization", "signature", "mnemonic", "seed", "private", "card", "cvv", "pin", "key", "keys"]);
const SECRET_CODE = /^(code|codes|(recovery|totp|verify|verification|otp|one_time)_codes?)$/;

/** Field names are few and fixed: each is judged once per isolate (a log line costs no regex). */
const judged = new Map<string, boolean>();

export function isSecretName(name: string): boolean {
  let secret = judged.get(name);
  if (secret === undefined) {
    secret = judgeName(name);
    if (judged.size < 10_000) judged.set(name, secret);
  }
  return secret;
}

function judgeName(name: string): boolean {
  const snake = name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
  return SECRET_CODE.test(snake) || snake.split(/[_\-.]/).some((w) => SECRET_WORDS.has(w));
}

/** An error as a log field: its name and message (and a database's cause), never the request. */
export function errorFields(err: unknown): { error: string; error_name?: string } {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : "";
    return { error: `${err.message}${cause}`.slice(0, 1000), error_name: err.name };
  }
  return { error: String(err).slice(0, 1000) };
}

function clean(fields: LogFields, depth = 0): LogFields {
  const out: LogFields = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    if (isSecretName(k)) out[k] = "[redacted]";
    else if (v instanceof Error) Object.assign(out, errorFields(v));
    else if (v && typeof v === "object" && !Array.isArray(v) && depth < 2) out[k] = clean(v as LogFields, depth + 1);
    else out[k] = v;
  }
  return out;
}

/** Tests only: collect the lines (shared.sink, normally the console that Workers Logs reads) instead of printing them; returns a function restoring the console. */
export function captureLogs(into: { level: LogLevel; line: LogFields }[]): () => void {
  const before = shared.sink;
  shared.sink = (level, line) => into.push({ level, line: JSON.parse(line) as LogFields });
  return () => {
    shared.sink = before;
  };
}

/** Writes one event. `event` is a dotted name (`api.request`, `cron.run`, `feed.stale`). */
export function log(level: LogLevel, event: string, fields: LogFields = {}): void {
  const ctx = context.getStore();
  const line = { time: new Date().toISOString(), level, event, ...(ctx ? { request_id: ctx.request_id, route: ctx.route } : {}), ...clean(fields) };
  try {
    shared.sink(level, JSON.stringify(line));
  } catch {
    shared.sink(level, JSON.stringify({ time: line.time, level, event, note: "fields not serializable" }));
  }
}

export const logInfo = (event: string, fields?: LogFields) => log("info", event, fields);
export const logWarn = (event: string, fields?: LogFields) => log("warn", event, fields);
export const logError = (event: string, fields?: LogFields) => log("error", event, fields);
