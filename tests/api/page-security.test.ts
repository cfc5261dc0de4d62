import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { withSecureCookies } from "../../worker/page-security";
import { newUser, page, seed } from "./helpers";

beforeAll(() => seed());

const nonceOf = (csp: string | null) => /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp ?? "")?.[1];

describe("page headers (decision 087)", () => {
  it("a Content-Security-Policy with a fresh nonce per answer, carried by every script the page renders", async () => {
    const [a, b] = await Promise.all([page("/pages/user/login"), page("/pages/user/login")]);
    const csp = a.headers.get("content-security-policy");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{24}'(;|$)/);
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    const nonce = nonceOf(csp);
    expect(nonce).toBeTruthy();
    expect(nonceOf(b.headers.get("content-security-policy"))).not.toBe(nonce);
    const html = await a.text();
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(2);
    for (const tag of scripts) {
      if (/\bsrc=/.test(tag)) continue; // files from our own origin
      expect(tag).toContain(`nonce="${nonce}"`);
    }
    expect(a.headers.get("x-content-type-options")).toBe("nosniff");
    expect(a.headers.get("referrer-policy")).toBe("same-origin");
    // Plain http (local): no HSTS; it only means something over https.
    expect(a.headers.get("strict-transport-security")).toBeNull();
  });

  it("HSTS and Secure cookies over https", async () => {
    const u = await newUser();
    const signIn = await overHttps("/pages/user/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://127.0.0.1", host: "127.0.0.1" },
      body: new URLSearchParams({ account: u.account, password: u.password, path: "" }),
    });
    expect(signIn.status).toBe(302);
    expect(signIn.headers.getSetCookie().find((c) => c.startsWith("pl_session="))).toMatch(/;\s*Secure/i);
    const login = await overHttps("/pages/user/login");
    expect(login.headers.get("strict-transport-security")).toMatch(/max-age=\d+/);
    expect(login.headers.get("content-security-policy")).toContain("connect-src 'self' wss://127.0.0.1");
  });
});

describe("Secure cookies, one rule for every cookie", () => {
  it("the guest chat cookie the API sets is Secure over https, and not over local http", async () => {
    const https = await overHttps("/api/service/open", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(https.headers.getSetCookie().find((c) => c.startsWith("pl_guest="))).toMatch(/;\s*Secure/i);
    const http = await page("/api/service/open", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(http.headers.getSetCookie().find((c) => c.startsWith("pl_guest="))).not.toMatch(/;\s*Secure/i);
  });

  it("in production every cookie is Secure even on a plain-http request; sockets pass untouched", () => {
    const answer = () => {
      const r = new Response("x");
      r.headers.append("set-cookie", "pl_session=abc; Path=/; HttpOnly; SameSite=Lax");
      r.headers.append("set-cookie", "lng=th; Path=/; Secure");
      return r;
    };
    const http = new Request("http://example.com/pages/user/login");
    const prod = withSecureCookies(answer(), http, { APP_ENV: "production" }).headers.getSetCookie();
    expect(prod).toEqual(["pl_session=abc; Path=/; HttpOnly; SameSite=Lax; Secure", "lng=th; Path=/; Secure"]);
    expect(withSecureCookies(answer(), http, { APP_ENV: "local" }).headers.getSetCookie()[0]).not.toMatch(/Secure/);
    const upgrade = { status: 101 } as Response;
    expect(withSecureCookies(upgrade, http, { APP_ENV: "production" })).toBe(upgrade);
  });
});

/** The whole Worker reached over https (the `page` helper speaks http). */
function overHttps(path: string, init: RequestInit = {}): Promise<Response> {
  return (exports as unknown as { default: { fetch(r: Request): Promise<Response> } }).default.fetch(new Request(`https://127.0.0.1${path}`, { redirect: "manual", ...init }));
}

describe("cross-site page posts", () => {
  const form = (u: { account: string; password: string }) => new URLSearchParams({ account: u.account, password: u.password, path: "" });

  it("a sign-in form posted from another site is refused before it runs: no session cookie", async () => {
    const u = await newUser();
    for (const headers of [{ origin: "https://evil.example" }, { "sec-fetch-site": "cross-site" }] as Record<string, string>[]) {
      const res = await page("/pages/user/login", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: form(u) });
      expect(res.status).toBe(403);
      expect(res.headers.getSetCookie().some((c) => c.startsWith("pl_session="))).toBe(false);
    }
  });

  it("the same form from our own page signs in", async () => {
    const u = await newUser();
    const res = await page("/pages/user/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://127.0.0.1", host: "127.0.0.1", "sec-fetch-site": "same-origin" },
      body: form(u),
    });
    expect(res.status).toBe(302);
    expect(res.headers.getSetCookie().some((c) => c.startsWith("pl_session="))).toBe(true);
  });
});
