import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loginUrl, needsLogin, safeReturnPath } from "../../app/lib/guard";

describe("the login guard (docs/product.md, who can open what)", () => {
  it.each(["/pages/user/login", "/pages/user/login2", "/pages/user/register", "/pages/user/forgot", "/pages/me/sub/service", "/pages/user/register/", "/pages/x/register-bonus", "/admin", "/admin/audit"])(
    "%s is open",
    (p) => expect(needsLogin(p)).toBe(false),
  );

  it.each(["/", "/pages/index/index", "/pages/money/index", "/pages/me/index", "/pages/me/sub/setting", "/pages/me/sub/stored", "/pages/user/loginx", "/administrator"])(
    "%s needs login",
    (p) => expect(needsLogin(p)).toBe(true),
  );

  it("the login URL carries the original path", () => {
    expect(loginUrl("/pages/me/index?a=1&b=2")).toBe("/pages/user/login?path=%2Fpages%2Fme%2Findex%3Fa%3D1%26b%3D2");
  });
});

describe("the return path after login", () => {
  it("keeps same-site paths", () => {
    expect(safeReturnPath("/pages/me/index?x=1")).toBe("/pages/me/index?x=1");
  });

  it.each(["//evil.example", "/\\evil.example", "https://evil.example", "javascript:alert(1)", "", null, "/pages/user/login?path=/x"])("refuses %j", (p) => {
    expect(safeReturnPath(p)).toBe("/");
  });

  it("whatever it is given, the result is a same-site path", () => {
    fc.assert(
      fc.property(fc.string(), (p) => {
        const r = safeReturnPath(p);
        expect(r.startsWith("/")).toBe(true);
        expect(r.startsWith("//") || r.startsWith("/\\")).toBe(false);
        expect(new URL(r, "https://proofline.app").origin).toBe("https://proofline.app");
      }),
      { numRuns: 3000 },
    );
  });
});
