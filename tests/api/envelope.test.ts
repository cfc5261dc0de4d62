import { describe, expect, it } from "vitest";
import { RESOURCES } from "../../locales";
import { API_SECURITY_HEADERS } from "../../worker/api/envelope";
import { call, newUser, page, uniqueAccount } from "./helpers";

describe("the {code, msg, data} envelope", () => {
  it("GET /api/health answers code 1", async () => {
    const r = await call("/api/health", undefined, { method: "GET" });
    expect(r.status).toBe(200);
    expect(r.code).toBe(1);
  });

  it("an unknown path is a 404 envelope", async () => {
    const r = await call("/api/nope/nothing");
    expect(r.status).toBe(404);
    expect(r.code).toBe(0);
    expect(r.data.error).toBe("not_found");
  });

  it("a protected route without a session is HTTP 401 with the envelope", async () => {
    const r = await call("/api/user/user");
    expect(r.status).toBe(401);
    expect(r.code).toBe(0);
    expect(r.msg).toBe("Login has expired, please log in again!");
  });

  it("a made-up token is also 401", async () => {
    const r = await call("/api/user/user", {}, { token: "x".repeat(43) });
    expect(r.status).toBe(401);
  });

  it.each([
    ["malformed JSON", "{not json", "application/json"],
    ["a JSON array", "[1,2,3]", "application/json"],
    ["a JSON string", '"hello"', "application/json"],
    ["deep nesting", JSON.stringify({ a: [[[[[[[[[[[[1]]]]]]]]]]]] }), "application/json"],
    ["invalid UTF-8", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), "application/json"],
  ])("%s gets a 4xx envelope, not a 5xx", async (_name, body, type) => {
    const res = await call("/api/user/login", body as string, { headers: { "content-type": type } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.code).toBe(0);
    expect(res.data.error).toBe("malformed");
  });

  it("a huge body is refused with 413", async () => {
    const r = await call("/api/user/login", JSON.stringify({ account: "a".repeat(200_000), password: "x" }), {
      headers: { "content-type": "application/json" },
    });
    expect(r.status).toBe(413);
    expect(r.code).toBe(0);
  });

  it("wide objects are refused", async () => {
    const wide = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, i]));
    const r = await call("/api/user/login", wide);
    expect(r.status).toBe(400);
  });

  it("an unsupported content type is 415", async () => {
    const r = await call("/api/user/login", "<xml/>", { headers: { "content-type": "application/xml" } });
    expect(r.status).toBe(415);
    expect(r.code).toBe(0);
  });

  it.each([
    ["a number account", { account: 12345678, password: "abc12345" }],
    ["an array password", { account: "someone", password: ["a"] }],
    ["an object account", { account: { $gt: "" }, password: "abc12345" }],
    ["null fields", { account: null, password: null }],
  ])("wrong types (%s) get code 0 with a clear message", async (_name, body) => {
    const r = await call("/api/user/login", body);
    expect(r.status).toBe(200);
    expect(r.code).toBe(0);
    expect(r.msg.length).toBeGreaterThan(0);
  });

  it("missing fields say 'Please enter complete information'", async () => {
    const r = await call("/api/user/register", { account: "someone1" });
    expect(r.code).toBe(0);
    expect(r.msg).toBe("Please enter complete information");
  });

  it("accepts urlencoded and multipart bodies too", async () => {
    const form = await call("/api/user/login", `account=${uniqueAccount("form")}&password=abc12345`, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.code).toBe(0);
    expect(form.data.error).toBe("login_failed");
    const fd = new FormData();
    fd.set("account", uniqueAccount("multi"));
    fd.set("password", "abc12345");
    const multi = await call("/api/user/login", fd);
    expect(multi.code).toBe(0);
    expect(multi.data.error).toBe("login_failed");
  });

  describe("messages follow lang", () => {
    const loginFailed = (key: keyof typeof RESOURCES) => (RESOURCES[key].errors as Record<string, string>).login_failed;
    // A fresh account each time: five failures on one account would lock it (throttling).
    const body = () => ({ account: uniqueAccount("nobody"), password: "abc12345" });

    it.each([
      ["ty", "th"],
      ["jpn", "ja"],
      ["tw", "zh-Hant"],
      ["zh", "zh-Hans"],
      ["xby", "es"],
      ["de", "de"],
    ] as const)("lang=%s in the body answers in %s", async (code, key) => {
      const r = await call("/api/user/login", { ...body(), lang: code });
      expect(r.msg).toBe(loginFailed(key));
    });

    it("lang in the query string", async () => {
      const r = await call("/api/user/login?lang=yn", body());
      expect(r.msg).toBe(loginFailed("vi"));
    });

    it("the lang header, then Accept-Language", async () => {
      expect((await call("/api/user/login", body(), { headers: { lang: "bx" } })).msg).toBe(loginFailed("pt"));
      expect((await call("/api/user/login", body(), { headers: { "accept-language": "it-IT,it;q=0.9" } })).msg).toBe(loginFailed("it"));
    });

    it("English when nothing matches", async () => {
      const r = await call("/api/user/login", { ...body(), lang: "klingon" }, { headers: { "accept-language": "xx" } });
      expect(r.msg).toBe(loginFailed("en"));
    });
  });
});

describe("every API answer carries the security headers (decision 168)", () => {
  const expectSecured = (headers: Headers) => {
    for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) expect(headers.get(name), name).toBe(value);
  };

  it("an envelope's success and failure, health, a 404 and a 401, each with its JSON type", async () => {
    const answers = [
      await call("/api/health", undefined, { method: "GET" }),
      await call("/api/user/login", { account: uniqueAccount(), password: "wrong-password" }),
      await call("/api/nope/nothing"),
      await call("/api/user/user"),
      await call("/api/user/login", "{not json", { headers: { "content-type": "application/json" } }),
    ];
    for (const r of answers) {
      expectSecured(r.headers);
      expect(r.headers.get("content-type")).toBe("application/json");
    }
  });

  it("an answer that is not an envelope (a CSV download) gets them too", async () => {
    const u = await newUser();
    const day = new Date().toISOString().slice(0, 10);
    const res = await page(`/api/user/statement.csv?from=${day}&to=${day}`, { headers: { token: u.token } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    expectSecured(res.headers);
  });

  it("a cookie a handler sets (the guest chat's) reaches the answer beside them", async () => {
    const res = await page("/api/service/open", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    const body = (await res.json()) as { code: number };
    expect(body.code).toBe(1);
    expect(res.headers.getSetCookie().filter((c) => c.startsWith("pl_guest="))).toHaveLength(1);
    expectSecured(res.headers);
    // The envelope's headers are one shared template: the next answer carries no cookie of this one.
    const next = await page("/api/health");
    expect(next.headers.getSetCookie()).toEqual([]);
    expectSecured(next.headers);
  });
});
