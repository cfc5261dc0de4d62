import { env, exports } from "cloudflare:workers";
import { and, eq, isNull } from "drizzle-orm";
import { createApi } from "../../worker/api/app";
import { getDb } from "../../worker/db/client";
import { withInvocationDb } from "../../worker/db/limits";
import type { Env } from "../../worker/env";
import { DEMO, seedDemo } from "../../scripts/seed-demo";
import { serverNow } from "../../worker/clock";
import { operator_two_factor, operators, sessions } from "../../worker/db/schema";
import { enrolOperatorKey, STEP_UP_TTL_MS } from "../../worker/domain/identity/operator-two-factor";
import { hashSessionToken } from "../../worker/domain/identity/session";
import { newTotpSecret, stepAt, totpCode } from "../../worker/domain/identity/two-factor";

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

/**
 * A client address no other test uses: a random one of the 16 million in 10.0.0.0/8. The
 * per-network limiters count an IPv4 address as it is and share the D1 of a run, so two tests
 * that drew the same address from a 250-address block met one time in a few dozen runs.
 */
export function uniqueIPv4(): string {
  const [a, b, c] = crypto.getRandomValues(new Uint8Array(3));
  return `10.${a}.${b}.${c}`;
}

/** A /64 no other test uses, for the limiters that count an IPv6 network by its /64. */
export function uniqueIPv6Prefix(): string {
  const [a, b] = crypto.getRandomValues(new Uint16Array(2));
  return `2001:db8:${a.toString(16)}:${b.toString(16)}`;
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

/**
 * Operators sign in with a code (decision 117). The tests are the operators' phones: they know
 * the demo operators' keys (scripts/seed-demo.ts) and the keys of operators they enrol.
 */
const operatorKeys = new Map<string, string>([
  [DEMO.operator.account, DEMO.operator.totp_key],
  [DEMO.operator2.account, DEMO.operator2.totp_key],
]);
const demoPasswords = new Map<string, string>([
  [DEMO.operator.account, DEMO.operator.password],
  [DEMO.operator2.account, DEMO.operator2.password],
]);

/** Gives a test-made operator an authenticator key (in force at once) the tests know. */
export async function enrolOperator(account: string): Promise<string> {
  const operator = await db.query.operators.findFirst({ where: eq(operators.account, account) });
  if (!operator) throw new Error(`no operator ${account}`);
  const key = newTotpSecret();
  await enrolOperatorKey(db, null, operator, key, Date.now());
  operatorKeys.set(account, key);
  return key;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What the operator's app shows, for a step no code of theirs has used yet: each code works
 * once (decision 068), and tests sign the same operators in many times a minute. The app's
 * current step or the next (both accepted for at least 30 s); when both are used, the next step.
 */
export async function operatorCode(account: string): Promise<string> {
  await seed();
  if (!operatorKeys.has(account)) await enrolOperator(account);
  const [row] = await db
    .select({ last_step: operator_two_factor.last_step })
    .from(operator_two_factor)
    .innerJoin(operators, eq(operators.id, operator_two_factor.operator_id))
    .where(eq(operators.account, account));
  const step = Math.max(stepAt(Date.now()), (row?.last_step ?? 0) + 1);
  while (stepAt(Date.now()) < step - 1) await sleep(250);
  return totpCode(operatorKeys.get(account)!, step);
}

/** The console's sign-in: the password and a fresh code (the demo operators' passwords are known). */
export async function operatorLogin(account: string = DEMO.operator.account, password: string = demoPasswords.get(account) ?? "", headers?: Record<string, string>): Promise<Answer> {
  return call("/api/admin/login", { account, password, code: await operatorCode(account) }, { headers });
}

/** A fresh confirmation of the factor on an operator's session (the money routes need one). */
export async function stepUp(account: string, token: string): Promise<Answer> {
  return call("/api/admin/step_up", { code: await operatorCode(account) }, { token });
}

const operatorSessions = new Map<string, string>();

/**
 * An operator session that money routes take: one sign-in per operator for the whole workerd
 * (argon2 is slow on purpose, and codes are few), confirmed again when its confirmation is more
 * than four minutes old. A session that ended meanwhile is replaced.
 */
export async function operatorToken(account: string = DEMO.operator.account, password?: string): Promise<string> {
  await seed();
  const known = operatorSessions.get(account);
  if (known) {
    const [row] = await db
      .select({ step_up_at_ms: sessions.step_up_at_ms })
      .from(sessions)
      .where(and(eq(sessions.token_hash, hashSessionToken(known)), isNull(sessions.revoked_at_ms)));
    const now_ms = await serverNow(testEnv, db);
    if (row && (await call("/api/admin/me", {}, { token: known })).code === 1) {
      if (row.step_up_at_ms !== null && now_ms - row.step_up_at_ms < STEP_UP_TTL_MS - 60_000) return known;
      if ((await stepUp(account, known)).code === 1) return known;
    }
  }
  const r = await operatorLogin(account, password);
  if (r.code !== 1) throw new Error(`operator login ${account}: ${r.msg}`);
  operatorSessions.set(account, r.data.token);
  return r.data.token as string;
}
