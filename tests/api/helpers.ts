import { env, exports } from "cloudflare:workers";
import { createApi } from "../../worker/api/app";
import { getDb } from "../../worker/db/client";
import { withInvocationDb } from "../../worker/db/limits";
import type { Env } from "../../worker/env";
import { seedDemo } from "../../scripts/seed-demo";

export const testEnv = env as unknown as Env;
export const db = getDb(testEnv.DB);
const app = createApi();

export type Answer<T = any> = { status: number; code: number; msg: string; data: T; headers: Headers };

/**
 * Calls the Hono app as a client would (JSON body unless a string or FormData is given). Each
 * call is one invocation, as in production: it gets its own counted D1 view, so a request
 * that would pass production's D1 limits only locally fails here.
 */
export async function call<T = any>(
  path: string,
  body?: Record<string, unknown> | string | FormData | Uint8Array,
  opts: { token?: string; headers?: Record<string, string>; method?: string } = {},
): Promise<Answer<T>> {
  const headers = new Headers(opts.headers);
  if (opts.token) headers.set("token", opts.token);
  let payload: BodyInit | undefined;
  if (typeof body === "string" || body instanceof FormData || body instanceof Uint8Array) payload = body as BodyInit;
  else if (body) {
    headers.set("content-type", headers.get("content-type") ?? "application/json");
    payload = JSON.stringify(body);
  }
  const res = await app.request(path, { method: opts.method ?? "POST", headers, body: payload }, withInvocationDb(testEnv));
  const json = (await res.json()) as { code: number; msg: string; data: T };
  return { status: res.status, ...json, headers: res.headers };
}

/** The whole Worker (Remix pages included), as the browser reaches it. */
export function page(path: string, init: RequestInit = {}): Promise<Response> {
  return (exports as unknown as { default: { fetch(r: Request): Promise<Response> } }).default.fetch(
    new Request(`http://127.0.0.1${path}`, { redirect: "manual", ...init }),
  );
}

let seeded: Promise<unknown> | null = null;
export function seed() {
  seeded ??= seedDemo(db, testEnv.UPLOADS);
  return seeded;
}

let n = 0;
/** A fresh, valid account name per call (tests share one D1 per file). */
export function uniqueAccount(prefix = "u"): string {
  n += 1;
  return `${prefix}${Date.now().toString(36)}${n}`.slice(0, 20);
}

export async function newUser(account = uniqueAccount(), password = "secret123") {
  await seed();
  const r = await call("/api/user/register", { account, password, password_confirm: password, invite_code: "WELCOME" });
  if (r.code !== 1) throw new Error(`register failed: ${r.msg}`);
  return { account, password, token: r.data.userinfo.token as string, id: r.data.userinfo.id as number };
}
