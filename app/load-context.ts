import type { ApiCall, ApiFetch } from "../worker/api/in-process";
import type { Env } from "../worker/env";

declare module "@remix-run/cloudflare" {
  interface AppLoadContext {
    env: Env;
    ctx: ExecutionContext;
    /** The Hono API, called in-process (see worker/api/in-process.ts). */
    api: ApiCall;
    /** This answer's script nonce (worker/page-security.ts): the only inline scripts that run carry it. */
    cspNonce: string;
    /** The same, answering the raw Response (downloads that are not an envelope). */
    apiFetch: ApiFetch;
  }
}
