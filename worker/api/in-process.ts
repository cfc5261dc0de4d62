import type { Env } from "../env";
import type { Api } from "./app";
import type { Envelope } from "./envelope";
import { IN_PROCESS_HEADER, inProcessMark } from "../in-process-mark";
import { currentRequestId } from "../observability/log";
import { REQUEST_ID_HEADER } from "../observability/request";
import { translate } from "../i18n";
import { localeFromLang } from "../../locales/languages";
import { isUpload, REQUEST_TIMEOUT_CODE, timeoutFor, withTimeout } from "./request-timeout";

export { isInProcessRequest } from "../in-process-mark";

export type ApiResult<T = any> = { status: number; body: Envelope<T> };

export type ApiCall = <T = any>(
  path: string,
  opts?: { body?: Record<string, unknown> | FormData; token?: string | null; lang?: string; method?: "GET" | "POST"; guest_token?: string | null },
) => Promise<ApiResult<T>>;

export type ApiFetch = (path: string, opts?: Parameters<ApiCall>[1]) => Promise<Response>;

/**
 * The in-process request itself, answering the API's raw Response: what a page needs for an
 * answer that is not an envelope (the CSV downloads). Pages pass the session token read from
 * their httpOnly cookie as the `token` header, exactly as an API client would.
 */
export function inProcessFetch(api: Api, env: Env, ctx: ExecutionContext, client_ip: string | null = null, origin = "http://internal", user_agent: string | null = null): ApiFetch {
  return async (path, opts = {}) => {
    const headers = new Headers();
    headers.set(IN_PROCESS_HEADER, inProcessMark());
    // The page's request id: its async context reaches the API too, the header is the fallback.
    const request_id = currentRequestId();
    if (request_id) headers.set(REQUEST_ID_HEADER, request_id);
    // The visitor's address, so per-IP limits count what they do through pages too.
    if (client_ip) headers.set("cf-connecting-ip", client_ip);
    // The visitor's browser, so a sign-in through a page records the device it came from.
    if (user_agent) headers.set("user-agent", user_agent);
    if (opts.token) headers.set("token", opts.token);
    // A customer-service guest's token (from the page's httpOnly `pl_guest` cookie).
    if (opts.guest_token) headers.set("guest-token", opts.guest_token);
    if (opts.lang) headers.set("lang", opts.lang);
    let body: BodyInit | undefined;
    if (opts.body instanceof FormData) body = opts.body;
    else if (opts.body) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(opts.body);
    }
    const method = opts.method ?? "POST";
    // The page's own origin, so the API sees the host the visitor sees: a wallet signs its
    // sign-in message for that domain, and the API checks it against its request URL.
    return api.request(`${origin}${path}`, { method, headers, body: method === "GET" ? undefined : body }, env, ctx);
  };
}

/**
 * Lets Remix loaders and actions call the Hono API without a network hop, so validation,
 * auth and the envelope live in one place.
 */
export function inProcessApi(api: Api, env: Env, ctx: ExecutionContext, client_ip: string | null = null, origin = "http://internal", user_agent: string | null = null): ApiCall {
  return timedApiCall(inProcessFetch(api, env, ctx, client_ip, origin, user_agent));
}

/**
 * Every page's API call under the client's time limit (decision 142): 60 s, 10 s for an upload
 * (a FormData body). Past it the page gets a 504 envelope `request_timeout` in its language;
 * the call itself cannot be taken back, so its late answer is dropped. `timeout_ms` is for tests.
 */
export function timedApiCall(send: ApiFetch, timeout_ms?: (upload: boolean) => number): ApiCall {
  const limit = timeout_ms ?? timeoutFor;
  return async <T>(path: string, opts: Parameters<ApiCall>[1] = {}) => {
    const work = send(path, opts).then(async (res) => ({ status: res.status, body: (await res.json()) as Envelope<T> }));
    const answer = await withTimeout(work, AbortSignal.timeout(limit(isUpload(opts.body))));
    if (answer.status === "ok") return answer.value;
    // Nobody waits for the late answer; a failure of it must not become an unhandled rejection.
    work.catch(() => {});
    const locale = localeFromLang(opts.lang) ?? "en";
    const body: Envelope<any> = { code: 0, msg: translate(locale, `errors.${REQUEST_TIMEOUT_CODE}`), data: { error: REQUEST_TIMEOUT_CODE } };
    return { status: 504, body };
  };
}
