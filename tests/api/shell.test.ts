import { beforeAll, describe, expect, it } from "vitest";
import { newUser, page, seed } from "./helpers";

beforeAll(() => seed());

/** The installable shell's server side: the old shell's paths and the theme cookie. */
async function sessionCookie(): Promise<string> {
  const u = await newUser();
  const res = await page("/pages/user/login", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ account: u.account, password: u.password, path: "" }),
  });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("pl_session="));
  if (!cookie) throw new Error("no session cookie");
  return cookie.split(";")[0];
}

describe("old shell paths (docs/decisions/062)", () => {
  it.each([
    ["/pages/wallet/index", 301, "/"],
    ["/pages/index/template", 301, "/"],
    ["/pages/rob/index", 301, "/pages/money/index"],
    ["/pages/team/index", 301, "/pages/me/index"],
    ["/choose-location", 302, "/"],
    ["/open-location?lat=1&lng=2", 302, "/?lat=1&lng=2"],
  ])("%s answers %i to %s, before any login guard", async (path, status, to) => {
    const res = await page(path);
    expect(res.status).toBe(status);
    expect(res.headers.get("location")).toBe(to);
  });
});

describe("theme", () => {
  it("with no cookie the page follows the system", async () => {
    const html = await (await page("/pages/user/login")).text();
    expect(html).toContain('data-theme="system"');
    expect(html).toContain('name="color-scheme" content="light dark"');
  });

  it.each(["light", "dark"])("the %s cookie is rendered on the first byte", async (theme) => {
    const html = await (await page("/pages/user/login", { headers: { cookie: `theme=${theme}` } })).text();
    expect(html).toContain(`data-theme="${theme}"`);
    expect(html).toContain(`name="color-scheme" content="${theme}"`);
  });

  it("an unknown cookie value is the system theme, not an attribute injection", async () => {
    const html = await (await page("/pages/user/login", { headers: { cookie: 'theme="><script>x</script>' } })).text();
    expect(html).toContain('data-theme="system"');
    expect(html).not.toContain("<script>x</script>");
  });

  it("the settings switch stores the choice for a year; nonsense stores system", async () => {
    const session = await sessionCookie();
    const post = (theme: string) =>
      page("/pages/me/sub/setting.data", {
        method: "POST",
        headers: { cookie: session, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ intent: "theme", theme }),
      });
    const dark = (await post("dark")).headers.getSetCookie().find((c) => c.startsWith("theme="));
    expect(dark).toMatch(/^theme=dark; Path=\/; Max-Age=31536000; SameSite=Lax/);
    const odd = (await post("purple")).headers.getSetCookie().find((c) => c.startsWith("theme="));
    expect(odd).toMatch(/^theme=system;/);
  });
});
