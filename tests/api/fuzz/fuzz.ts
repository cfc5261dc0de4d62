/**
 * The route fuzzer: every route of the Hono app (read from the app itself, so a new route joins
 * by itself) gets FUZZ_RUNS generated bad requests: wrong and missing content types, empty, huge
 * and deeply nested bodies, `__proto__` keys, amounts as strings, negatives, 1e309, NaN, too many
 * decimals, numbers above 2^53, bad, ended and other users' tokens, and other users' ids. Every
 * answer must be the JSON envelope (or a 4xx): never a 5xx, never a stack trace. The files
 * routes-<n>.test.ts each take one shard of the routes so two run side by side.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkLedger } from "../../../worker/domain/ledger/check";
import { createApi } from "../../../worker/api/app";
import { withInvocationDb } from "../../../worker/db/limits";
import { DEMO } from "../../../scripts/seed-demo";
import { call, db, newUser, operatorLogin, seed, testEnv } from "../helpers";

export const SHARDS = 4;
/** CI's tier: 200 requests a route. `npm run fuzz -- --runs 2000` passes more through the binding. */
export const RUNS = Number((testEnv as unknown as { FUZZ_RUNS?: string }).FUZZ_RUNS ?? 200) || 200;

const app = createApi();

export type Route = { method: string; path: string };

/** Every method and path the API answers, `ALL` middleware left out. */
export function apiRoutes(): Route[] {
  const seen = new Map<string, Route>();
  for (const r of app.routes) {
    if (r.method === "ALL" || r.path.includes("*")) continue;
    seen.set(`${r.method} ${r.path}`, { method: r.method, path: r.path });
  }
  return [...seen.values()].sort((a, b) => `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`));
}

export function shard(n: number): Route[] {
  return apiRoutes().filter((_, i) => i % SHARDS === n);
}

/** Field names the API reads somewhere: a generated body that uses them reaches validation, not just "missing". */
const FIELDS = [
  "account", "address", "amount", "bank", "bank_id", "body", "card", "card_number", "chain", "channel_id", "client_message_id",
  "code", "context_kind", "context_ref_id", "conversation_id", "deposit_id", "direction", "durations", "email", "enabled", "id",
  "image_url", "invite_code", "kind", "lang", "limit", "link", "message", "mobile", "name", "new_password_confirm", "old_password",
  "order_id", "page_no", "password", "password_confirm", "price", "product_id", "promotion_id", "quote_price", "reason", "ref_id",
  "repassword", "row", "seconds", "signature", "stake", "status", "symbol", "text", "title", "to", "transfer_id", "type", "upload_id",
  "user_id", "value", "wallet", "wallet_id", "withdrawal_id", "money", "num", "pid", "ctime", "rate",
];

/** The values that broke apps like ours: numbers in every wrong shape, and strings that are not what they seem. */
const NASTY_TEXT = [
  "1e309", "-1e309", "NaN", "Infinity", "-1", "-0", "0", "-0.01", "1.234", "0.001", "9007199254740993", "18446744073709551616",
  "1,000", "0x10", " 1", "1 ", "١٢٣", "", " ", "\u0000", "\u202e", "%00", "../../etc/passwd", "<script>alert(1)</script>",
  "javascript:alert(1)", "' OR 1=1 --", "__proto__", "constructor", "{}", "[]", "null", "true", "💥".repeat(300), "a".repeat(70_000),
];

function nastyValue(otherIds: number[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(...NASTY_TEXT),
    fc.constantFrom(...otherIds, 0, -1, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, -(2 ** 31)),
    fc.double(),
    fc.integer(),
    fc.string({ maxLength: 40 }),
    fc.constantFrom(null, true, false),
    fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...FIELDS.slice(0, 10)), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  );
}

/** A body's fields as JSON text (built by hand so `__proto__` and numbers like 1e309 reach the wire as written). */
function jsonText(fields: [string, unknown][], raw: [string, string][]): string {
  const parts = fields.map(([k, v]) => `${JSON.stringify(k)}:${v === undefined ? "null" : JSON.stringify(v)}`);
  for (const [k, t] of raw) parts.push(`${JSON.stringify(k)}:${t}`);
  return `{${parts.join(",")}}`;
}

const HUGE = "x".repeat(1_100_000);
const DEEP = "[".repeat(100_000) + "]".repeat(100_000);

export type Who = { label: string; token?: string };

type Shape = "json" | "form" | "multipart" | "text" | "empty" | "huge" | "deep" | "bad-json";

export function badRequest(route: Route, who: Who[], otherIds: number[]) {
  const fields = fc.array(fc.tuple(fc.constantFrom(...FIELDS, "__proto__", "constructor"), nastyValue(otherIds)), { maxLength: 6 });
  const raw = fc.array(fc.tuple(fc.constantFrom(...FIELDS), fc.constantFrom("1e309", "-1e309", "1.0000001", "123456789012345678901234567890", '{"__proto__":{"admin":true}}')), { maxLength: 2 });
  const param = fc.oneof(fc.constantFrom("0", "-1", "abc", "1e3", "99999999999999999999", "%00", "..%2F..", "1.5", " 1"), fc.constantFrom(...otherIds.map(String)));
  return fc.record({
    shape: fc.constantFrom<Shape>("json", "json", "json", "form", "multipart", "text", "empty", "huge", "deep", "bad-json"),
    contentType: fc.constantFrom<string | null>(null, "application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=zz", "text/plain", "application/xml", "application/json; charset=utf-16", "garbage/&&"),
    fields,
    raw,
    who: fc.constantFrom(...who),
    param,
    query: fc.array(fc.tuple(fc.constantFrom(...FIELDS), fc.constantFrom(...NASTY_TEXT.slice(0, 20))), { maxLength: 3 }),
    lang: fc.constantFrom<string | null>(null, "th", "zh-Hant", "xx", "../../etc", "en;q=abc"),
  }).map((r) => toRequest(route, r));
}

type Generated = {
  shape: Shape; contentType: string | null; fields: [string, unknown][]; raw: [string, string][]; who: Who; param: string;
  query: [string, string][]; lang: string | null;
};

/** A value as a form field carries it (generated objects have no prototype, so no String()). */
const asText = (v: unknown): string => (typeof v === "string" ? v : (JSON.stringify(v) ?? ""));

function toRequest(route: Route, g: Generated): { url: string; init: RequestInit; label: string } {
  const path = route.path.replace(/:[a-z_]+/g, encodeURIComponent(g.param));
  const qs = new URLSearchParams(g.query.map(([k, v]) => [k, v])).toString();
  const headers = new Headers();
  if (g.who.token) headers.set("token", g.who.token);
  if (g.lang) headers.set("accept-language", g.lang);
  let body: BodyInit | undefined;
  switch (g.shape) {
    case "json": body = jsonText(g.fields, g.raw); break;
    case "bad-json": body = jsonText(g.fields, g.raw).slice(0, -1) + ",,"; break;
    case "form": body = new URLSearchParams(g.fields.map(([k, v]) => [k, asText(v)])).toString(); break;
    // Written by hand with boundary "zz": only the generated type "multipart/form-data; boundary=zz" matches it.
    case "multipart": body = g.fields.map(([k, v]) => `--zz\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${asText(v)}\r\n`).join("") + "--zz--\r\n"; break;
    case "text": body = asText(g.fields[0]?.[1] ?? "hello"); break;
    case "huge": body = HUGE; break;
    case "deep": body = DEEP; break;
    case "empty": body = undefined;
  }
  if (g.contentType) headers.set("content-type", g.contentType);
  const hasBody = route.method !== "GET" && route.method !== "HEAD";
  return {
    url: `${path}${qs ? `?${qs}` : ""}`,
    init: { method: route.method, headers, body: hasBody ? body : undefined },
    label: `${route.method} ${path} as ${g.who.label}, ${g.shape} body, content-type ${g.contentType}`,
  };
}

/** What no answer may contain: a stack frame, an error class name, a file of ours. */
const LEAK = /\bat [^\n]*\.(ts|js|mjs):\d+|\b(TypeError|RangeError|ReferenceError|SyntaxError|SQLITE_|D1_ERROR)\b|worker\/|node_modules/;

/** Asserts one answer: below 500, no leak, and JSON answers are the envelope. */
export async function checkAnswer(res: Response, label: string) {
  const text = await res.text();
  // Readiness says "not ready" with a 503 by design (decision 130): its envelope, never an error.
  const notReady = res.status === 503 && label.includes("/api/health/ready") && text.includes('"error":"not_ready"');
  if (!notReady) expect(res.status, `${label}: ${text.slice(0, 300)}`).toBeLessThan(500);
  expect(LEAK.test(text), `${label} leaked: ${text.slice(0, 300)}`).toBe(false);
  const type = res.headers.get("content-type") ?? "";
  if (type.includes("json")) {
    const json = JSON.parse(text) as { code?: unknown; msg?: unknown };
    expect(typeof json.code, `${label}: not the envelope`).toBe("number");
    expect(typeof json.msg === "string" && json.msg.length > 0, `${label}: no message`).toBe(true);
  } else {
    // Downloads (CSV, images) are the only other answers, and only when the request was good.
    expect(res.status < 400 || res.status === 404 || res.status === 405, `${label}: a ${res.status} that is not the envelope (${type})`).toBe(true);
    expect(/^(text\/csv|image\/|application\/octet-stream)/.test(type) || res.status >= 400 || res.status === 101, `${label}: answered ${type || "nothing"}`).toBe(true);
  }
}

/** The identities a request comes as: nobody, nonsense, an ended session, two users, an operator. */
export async function identities(): Promise<{ who: Who[]; otherIds: number[] }> {
  const a = await newUser();
  const b = await newUser();
  const ended = await newUser();
  await call("/api/user/logout", {}, { token: ended.token });
  const op = await operatorLogin(DEMO.operator.account);
  const who: Who[] = [
    { label: "nobody" },
    { label: "a nonsense token", token: "x".repeat(64) },
    { label: "an ended session", token: ended.token },
    { label: "user a", token: a.token },
    { label: "user b", token: b.token },
  ];
  // Signed in with a code (decision 117): a refused sign-in would silently drop the operator's coverage.
  if (op.code !== 1) throw new Error(`operator login: ${op.msg}`);
  who.push({ label: "an operator", token: op.data.token as string });
  return { who, otherIds: [a.id, b.id, ended.id] };
}

/** Fuzzes each route of the shard with RUNS requests. */
export async function fuzzRoutes(routes: Route[], who: Who[], otherIds: number[]) {
  let sent = 0;
  for (const route of routes) {
    await fc.assert(
      fc.asyncProperty(badRequest(route, who, otherIds), async ({ url, init, label }) => {
        const res = await app.request(url, init, withInvocationDb(testEnv));
        sent += 1;
        await checkAnswer(res, label);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  }
  return sent;
}

/** One shard's suite: every route of the shard fuzzed, then the books checked. */
export function fuzzShard(n: number) {
  describe(`fuzz: shard ${n} of ${SHARDS}`, () => {
    it(`sends ${RUNS} bad requests to each route of the shard: no 5xx, no stack trace, the envelope, no ledger drift`, async () => {
      await seed();
      const { who, otherIds } = await identities();
      const routes = shard(n);
      expect(routes.length).toBeGreaterThan(apiRoutes().length / SHARDS - 1);
      const sent = await fuzzRoutes(routes, who, otherIds);
      expect(sent).toBe(routes.length * RUNS);
      const ledger = await checkLedger(db);
      expect(ledger.drift).toEqual([]);
      expect(ledger.ok).toBe(true);
    }, 600_000);
  });
}
