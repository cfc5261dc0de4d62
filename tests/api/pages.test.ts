import { beforeAll, describe, expect, it } from "vitest";
import { call, newUser, page, seed } from "./helpers";

beforeAll(() => seed());

/** The pages, through the whole Worker (Remix included), as a browser reaches them. */
async function loginCookie(account: string, password: string, path = "") {
  const res = await page("/pages/user/login", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ account, password, path }),
  });
  return res;
}

function cookieOf(res: Response, name: string): string | null {
  for (const c of res.headers.getSetCookie()) if (c.startsWith(`${name}=`)) return c.split(";")[0];
  return null;
}

describe("the login guard", () => {
  it.each(["/", "/pages/index/index", "/pages/me/index", "/pages/me/sub/setting?tab=1", "/pages/money/index", "/pages/invest/index"])(
    "%s without a session redirects to login with the path",
    async (path) => {
      const res = await page(path);
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(`/pages/user/login?path=${encodeURIComponent(path)}`);
    },
  );

  it.each(["/pages/user/login", "/pages/user/login2", "/pages/user/register"])("%s is open", async (path) => {
    const res = await page(path);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<html lang="en"');
  });

  it("any path containing 'register' is open (an unknown one is a 404, not a redirect)", async () => {
    const res = await page("/pages/user/register-by-invite");
    expect(res.status).toBe(404);
  });

  it("signs in, returns to the original path, and the page then renders", async () => {
    const u = await newUser();
    const res = await loginCookie(u.account, u.password, "/pages/me/sub/setting?tab=1");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/pages/me/sub/setting?tab=1");
    const cookie = cookieOf(res, "pl_session");
    expect(cookie).toBeTruthy();
    expect(res.headers.getSetCookie().find((c) => c.startsWith("pl_session="))).toMatch(/HttpOnly/i);
    const home = await page("/pages/me/index", { headers: { cookie: cookie! } });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain(u.account);
  });

  it("never returns to another site after login", async () => {
    const u = await newUser();
    for (const evil of ["//evil.example/x", "https://evil.example", "/\\evil.example"]) {
      const res = await loginCookie(u.account, u.password, evil);
      expect(res.headers.get("location")).toBe("/");
    }
  });

  it("a revoked session's cookie is cleared and the guard sends to login", async () => {
    const u = await newUser();
    const cookie = cookieOf(await loginCookie(u.account, u.password), "pl_session")!;
    // The cookie holds the session token (Remix cookie encoding: base64 of JSON).
    const token = JSON.parse(atob(decodeURIComponent(cookie.split("=")[1]))) as string;
    expect((await call("/api/user/logout", {}, { token })).code).toBe(1);
    const res = await page("/pages/me/index", { headers: { cookie } });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/pages/user/login?path=%2Fpages%2Fme%2Findex");
    expect(res.headers.getSetCookie().find((c) => c.startsWith("pl_session="))).toMatch(/Max-Age=0/i);
  });
});

describe("language detection for pages", () => {
  it("uses Accept-Language: zh-CN is Simplified, zh-TW Traditional", async () => {
    expect(await (await page("/pages/user/login", { headers: { "accept-language": "zh-CN,zh;q=0.9" } })).text()).toContain('lang="zh-Hans"');
    expect(await (await page("/pages/user/login", { headers: { "accept-language": "zh-TW" } })).text()).toContain('lang="zh-Hant"');
    expect(await (await page("/pages/user/login", { headers: { "accept-language": "th-TH,th;q=0.8,en;q=0.5" } })).text()).toContain('lang="th"');
  });

  it("the stored choice (lng cookie) wins over Accept-Language", async () => {
    const html = await (await page("/pages/user/login", { headers: { "accept-language": "de", cookie: `lng=${btoa(JSON.stringify("ja"))}` } })).text();
    expect(html).toContain('lang="ja"');
  });

  it("serves one language's words to the browser", async () => {
    const res = await page("/locales/th");
    expect(res.status).toBe(200);
    const words = (await res.json()) as { common: { tabs: { wallet: string } } };
    expect(words.common.tabs.wallet).not.toBe("Wallet");
    expect((await page("/locales/xx")).status).toBe(404);
  });
});
